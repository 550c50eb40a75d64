import { type CSSVariablesResolver, createTheme, darken, Loader, type MantineTheme, Notification } from '@mantine/core'

/**
 * The one theme. Light and dark follow the system (`defaultColorScheme="auto"` in app.tsx). Shades
 * are chosen for WCAG AA contrast (axe checks every page): white on blue.8, shade 9 on light tints (active
 * navigation, alerts, badges) and the darker dimmed text pass 4.5:1 where Mantine's defaults do not. The font is the system's, so
 * no font is fetched from anywhere. Modals, menus and notifications appear without animation for
 * people whose system asks for reduced motion (Mantine animates them for everyone by default).
 */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  cursorType: 'pointer',
  respectReducedMotion: true,
  components: {
    // A spinner's aria-label ("Loading the backups") needs a role to be read out; a status says it politely.
    Loader: Loader.extend({ defaultProps: { role: 'status' } }),
    // Mantine's close button of a notification has no name of its own.
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
})

/** Light-variant text (badges, alerts, the active navigation entry) darker than Mantine's, for 4.5:1 on its tint. */
const lightVariantText = (t: MantineTheme) =>
  Object.fromEntries(
    Object.entries(t.colors).map(([name, shades]) => [
      `--mantine-color-${name}-light-color`,
      // Even the darkest shade falls short on its own tint (green by a little, yellow by far).
      darken(shades[9], ['yellow', 'orange', 'lime'].includes(name) ? 0.4 : 0.15),
    ]),
  )

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  // Mantine's light error red (red.6) is under 4.5:1 on white, so field errors fail contrast checks; red.8 passes.
  light: {
    '--mantine-color-dimmed': t.colors.gray[7],
    '--mantine-color-error': t.colors.red[8],
    ...lightVariantText(t),
  },
  dark: { '--mantine-color-dimmed': t.colors.dark[1] },
})
