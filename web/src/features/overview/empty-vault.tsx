import { Button, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconBox, IconUpload } from '@tabler/icons-react'
import { Link } from 'react-router'

/** What the overview shows before the first upload: where to start. */
export function EmptyVault() {
  return (
    <Paper withBorder p="xl">
      <Stack align="center" gap="sm" ta="center">
        <ThemeIcon variant="light" size={56} radius="xl" aria-hidden>
          <IconBox size={32} stroke={1.5} />
        </ThemeIcon>
        <Title order={2} size="h3">
          Your vault is empty
        </Title>
        <Text c="dimmed" maw={460}>
          Add STL, 3MF, OBJ or G-code files and they show up here: how many, which formats, which slicers, and how much
          space deduplication saves.
        </Text>
        <Button component={Link} to="/upload" leftSection={<IconUpload size={18} aria-hidden />}>
          Upload files
        </Button>
      </Stack>
    </Paper>
  )
}
