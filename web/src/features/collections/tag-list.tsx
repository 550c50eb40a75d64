import { Badge, Group, VisuallyHidden } from '@mantine/core'
import { Link } from 'react-router'
import { libraryOfTag } from './library-links'
import type { Tag } from './use-collections'

/** Every tag in use as a link with its model count, opening the library filtered by it. */
export function TagList({ tags }: { tags: Tag[] }) {
  return (
    <Group gap="xs" component="ul" p={0} m={0} aria-label="Tags" style={{ listStyle: 'none' }}>
      {tags.map((tag) => (
        <li key={tag.name}>
          <Badge
            component={Link}
            to={libraryOfTag(tag.name)}
            variant="light"
            size="lg"
            tt="none"
            style={{ cursor: 'pointer' }}
            rightSection={
              <>
                {tag.model_count}
                <VisuallyHidden>{tag.model_count === 1 ? ' model' : ' models'}</VisuallyHidden>
              </>
            }
          >
            {tag.name}
          </Badge>
        </li>
      ))}
    </Group>
  )
}
