import { type CSSVariablesResolver, createTheme } from '@mantine/core'

/**
 * The one theme. Light and dark follow the system (`defaultColorScheme="auto"` in app.tsx). Shades
 * are chosen for WCAG AA contrast (axe checks every page): white on blue.8, blue.9 on light blue (active
 * navigation, alerts) and the darker dimmed text pass 4.5:1 where Mantine's defaults do not. The font is the system's, so
 * no font is fetched from anywhere.
 */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  cursorType: 'pointer',
})

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7], '--mantine-color-blue-light-color': t.colors.blue[9] },
  dark: { '--mantine-color-dimmed': t.colors.dark[1] },
})
