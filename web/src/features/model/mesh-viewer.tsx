import { ActionIcon, Alert, Box, Group, Text, Tooltip, useComputedColorScheme, useMantineTheme } from '@mantine/core'
import { IconArrowBackUp, IconArrowForwardUp, IconFocusCentered, IconZoomIn, IconZoomOut } from '@tabler/icons-react'
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react'
import { MeshStandardMaterial } from 'three'
import { formatDimensions } from './format'
import { parseMesh } from './parse-mesh'
import type { ViewableFormat } from './types'
import { createViewerScene, type SceneColors, type ViewerScene, WebGlUnavailableError } from './viewer-scene'

export interface MeshViewerProps {
  name: string
  format: ViewableFormat
  bytes: Uint8Array<ArrayBuffer>
}

/**
 * The interactive 3D view of one mesh file: drag to orbit, wheel or pinch to zoom, and buttons for
 * the same (fit, zoom, turn) so it works by keyboard too. Loaded on demand (three.js is large).
 */
export default function MeshViewer({ name, format, bytes }: MeshViewerProps) {
  const theme = useMantineTheme()
  const dark = useComputedColorScheme('light') === 'dark'
  const colors: SceneColors = dark
    ? { background: theme.colors.dark[7], gridMajor: theme.colors.dark[2], gridMinor: theme.colors.dark[4] }
    : { background: theme.colors.gray[0], gridMajor: theme.colors.gray[6], gridMinor: theme.colors.gray[3] }
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const sceneRef = useRef<ViewerScene>(null)
  const [size, setSize] = useState<[number, number, number]>()
  const [failure, setFailure] = useState<string>()

  const parsed = useMemo(() => {
    try {
      const material = new MeshStandardMaterial({
        color: theme.colors.orange[6],
        metalness: 0.05,
        roughness: 0.6,
        // Facets as the slicer will see them, whatever normals the file carries (many STL writers leave them zero).
        flatShading: true,
      })
      return { object: parseMesh(format, bytes, material) }
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) }
    }
  }, [format, bytes, theme])

  // The scene is built once per file; colour changes go to it without rebuilding.
  const colorsRef = useRef(colors)
  colorsRef.current = colors
  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas || !parsed.object) return
    try {
      const scene = createViewerScene(canvas, parsed.object, colorsRef.current)
      sceneRef.current = scene
      setSize(scene.size)
      setFailure(undefined)
      return () => {
        scene.dispose()
        sceneRef.current = null
      }
    } catch (error) {
      setFailure(
        error instanceof WebGlUnavailableError
          ? 'This browser cannot show the 3D view: WebGL is unavailable (it may be turned off, or the graphics driver is not supported). The file can still be downloaded.'
          : `The 3D view could not start: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }, [parsed])

  const { background, gridMajor, gridMinor } = colors
  useEffect(() => {
    sceneRef.current?.setColors({ background, gridMajor, gridMinor })
  }, [background, gridMajor, gridMinor])

  const message = parsed.error ?? failure
  if (message) {
    return (
      <Alert color={parsed.error ? 'red' : 'yellow'} title="No 3D view" role="alert">
        {message}
      </Alert>
    )
  }

  const act = (label: string, icon: ReactNode, action: (scene: ViewerScene) => void) => (
    <Tooltip label={label}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={label}
        onClick={() => sceneRef.current && action(sceneRef.current)}
      >
        {icon}
      </ActionIcon>
    </Tooltip>
  )

  return (
    <Box>
      <Box
        component="canvas"
        ref={canvasRef}
        role="img"
        aria-label={`3D view of ${name}`}
        display="block"
        w="100%"
        h={{ base: 300, sm: 420 }}
        style={{ borderRadius: 'var(--mantine-radius-md)', touchAction: 'none' }}
      />
      <Group justify="space-between" mt="xs" gap="xs">
        <Text size="sm" data-testid="model-dimensions">
          {size ? `Dimensions: ${formatDimensions(size)}` : 'Measuring…'}
        </Text>
        <Group gap={6}>
          {act('Fit to view', <IconFocusCentered size={18} aria-hidden />, (scene) => scene.fit())}
          {act('Zoom in', <IconZoomIn size={18} aria-hidden />, (scene) => scene.zoom(0.8))}
          {act('Zoom out', <IconZoomOut size={18} aria-hidden />, (scene) => scene.zoom(1.25))}
          {act('Turn left', <IconArrowBackUp size={18} aria-hidden />, (scene) => scene.rotate(-Math.PI / 8))}
          {act('Turn right', <IconArrowForwardUp size={18} aria-hidden />, (scene) => scene.rotate(Math.PI / 8))}
        </Group>
      </Group>
    </Box>
  )
}
