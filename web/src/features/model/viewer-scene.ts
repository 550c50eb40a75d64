import {
  AmbientLight,
  Box3,
  Color,
  DirectionalLight,
  GridHelper,
  HemisphereLight,
  type Object3D,
  PerspectiveCamera,
  Scene,
  Sphere,
  Vector3,
  WebGLRenderer,
} from 'three'
import { OrbitControls } from 'three/addons/controls/OrbitControls.js'

export interface SceneColors {
  background: string
  gridMajor: string
  gridMinor: string
}

/** The scene around one model: what the React component drives. */
export interface ViewerScene {
  /** The model's size along X, Y and Z, from its bounding box (mm, as the file's units). */
  size: [number, number, number]
  /** Frames the whole model from the front-right, above. */
  fit(): void
  /** Moves the camera towards (factor < 1) or away from (factor > 1) the target. */
  zoom(factor: number): void
  /** Turns the view around the vertical axis by `radians`. */
  rotate(radians: number): void
  setColors(colors: SceneColors): void
  dispose(): void
}

/** The renderer could not get a WebGL context: the browser or its GPU settings offer none. */
export class WebGlUnavailableError extends Error {
  override name = 'WebGlUnavailableError'
}

const up = new Vector3(0, 0, 1)
const viewDirection = new Vector3(1, -1.4, 1).normalize()

/**
 * Sets up a lit scene with Z up (as slicers and printers have it), the model standing centred on
 * a build-plate grid, orbit controls, and rendering on demand (only when something changed), so an
 * idle page costs nothing.
 */
export function createViewerScene(canvas: HTMLCanvasElement, model: Object3D, colors: SceneColors): ViewerScene {
  let renderer: WebGLRenderer
  try {
    renderer = new WebGLRenderer({ canvas, antialias: true })
  } catch {
    throw new WebGlUnavailableError('WebGL is unavailable')
  }
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2))

  const scene = new Scene()
  const bounds = new Box3().setFromObject(model)
  const size = bounds.getSize(new Vector3())
  const centre = bounds.getCenter(new Vector3())
  // Centred over the plate's origin, resting on it.
  model.position.sub(new Vector3(centre.x, centre.y, bounds.min.z))
  scene.add(model)

  const camera = new PerspectiveCamera(40, 1, 0.1, 100_000)
  camera.up.copy(up)
  // Sky light from above and a key light from the viewer's left: tops, fronts and sides each get their own shade.
  const hemisphere = new HemisphereLight(0xffffff, 0x445566, 1.1)
  hemisphere.position.copy(up)
  const key = new DirectionalLight(0xffffff, 2)
  // Both ends ride with the camera, so the light keeps its angle to the view while orbiting.
  key.position.set(-1, 0.5, 0)
  key.target.position.set(0, 0, -1)
  camera.add(key, key.target)
  scene.add(hemisphere, new AmbientLight(0xffffff, 0.2), camera)

  // 10 mm squares over a plate at least 200 mm wide and comfortably wider than the model.
  const plate = Math.max(200, Math.ceil((Math.max(size.x, size.y) * 1.5) / 10) * 10)
  let grid: GridHelper | undefined
  const setColors = (next: SceneColors) => {
    if (grid) {
      scene.remove(grid)
      grid.dispose()
    }
    grid = new GridHelper(plate, plate / 10, new Color(next.gridMajor), new Color(next.gridMinor))
    grid.rotation.x = Math.PI / 2
    scene.add(grid)
    scene.background = new Color(next.background)
    render()
  }

  const controls = new OrbitControls(camera, canvas)
  controls.addEventListener('change', () => render())
  const sphere = new Box3().setFromObject(model).getBoundingSphere(new Sphere())

  function render() {
    renderer.render(scene, camera)
  }

  function frameModel() {
    const radius = Math.max(sphere.radius, 1)
    const distance = radius / Math.sin((camera.fov * Math.PI) / 360)
    controls.target.copy(sphere.center)
    camera.position.copy(sphere.center).addScaledVector(viewDirection, distance * 1.1)
    camera.near = distance / 100
    camera.far = distance * 100
    camera.updateProjectionMatrix()
    controls.update()
    render()
  }

  const resize = () => {
    const { clientWidth: width, clientHeight: height } = canvas
    if (width === 0 || height === 0) return
    renderer.setSize(width, height, false)
    camera.aspect = width / height
    camera.updateProjectionMatrix()
    render()
  }
  const observer = new ResizeObserver(resize)
  observer.observe(canvas)

  resize()
  setColors(colors)
  frameModel()

  return {
    size: [size.x, size.y, size.z],
    fit: frameModel,
    zoom(factor) {
      camera.position.sub(controls.target).multiplyScalar(factor).add(controls.target)
      controls.update()
    },
    rotate(radians) {
      camera.position.sub(controls.target).applyAxisAngle(up, radians).add(controls.target)
      controls.update()
    },
    setColors,
    dispose() {
      observer.disconnect()
      controls.dispose()
      grid?.dispose()
      model.traverse((child) => {
        const disposable = child as Partial<{ geometry: { dispose(): void } }>
        disposable.geometry?.dispose()
      })
      renderer.dispose()
    },
  }
}
