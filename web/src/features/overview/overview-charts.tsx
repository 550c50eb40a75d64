import '@mantine/charts/styles.css'
import { BarChart, DonutChart } from '@mantine/charts'
import { Center, SimpleGrid } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import { ChartCard } from './chart-card'
import type { LibraryStats } from './use-library-stats'

const palette = [
  'blue.6',
  'teal.6',
  'grape.6',
  'orange.6',
  'cyan.6',
  'pink.6',
  'lime.7',
  'indigo.6',
  'red.6',
  'yellow.6',
]
const colorAt = (index: number) => palette[index % palette.length] ?? 'gray.6'
const topTags = 10

/**
 * The breakdowns of the library as charts: formats, tags, slicers and what deduplication saved.
 * Loaded on its own (React.lazy), so the charting library stays out of every other page.
 */
export function OverviewCharts({ stats }: { stats: LibraryStats }) {
  const tags = [...stats.by_tag].sort((a, b) => b.models - a.models).slice(0, topTags)
  const slicers = stats.by_slicer.map((row, index) => ({ name: row.slicer, value: row.files, color: colorAt(index) }))
  const { bytes_stored: stored, bytes_saved_by_dedup: saved } = stats.totals
  const dedup = [
    { name: 'Stored', value: stored, color: 'blue.6' },
    { name: 'Saved by deduplication', value: saved, color: 'teal.6' },
  ]
  const savedShare = stored + saved > 0 ? Math.round((saved / (stored + saved)) * 100) : 0
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <ChartCard
        title="Formats"
        legend={stats.by_format.map((row) => ({
          name: row.format.toUpperCase(),
          value: `${row.files.toLocaleString()} files · ${formatBytes(row.bytes)}`,
        }))}
      >
        <BarChart
          h={220}
          data={stats.by_format.map((row) => ({ ...row, format: row.format.toUpperCase() }))}
          dataKey="format"
          series={[
            { name: 'files', label: 'Files', color: 'blue.6' },
            { name: 'models', label: 'Models', color: 'teal.6' },
          ]}
          withLegend
          maxBarWidth={48}
          yAxisProps={{ allowDecimals: false }}
          tickLine="y"
        />
      </ChartCard>
      <ChartCard
        title={stats.by_tag.length > topTags ? `Top ${topTags} tags` : 'Tags'}
        empty={tags.length === 0 ? 'No model has a tag yet.' : undefined}
      >
        <BarChart
          h={Math.max(120, tags.length * 32)}
          data={tags}
          dataKey="tag"
          orientation="vertical"
          yAxisProps={{ width: 110 }}
          xAxisProps={{ allowDecimals: false }}
          series={[{ name: 'models', label: 'Models', color: 'grape.6' }]}
          tickLine="none"
          gridAxis="none"
          withBarValueLabel
        />
      </ChartCard>
      <ChartCard
        title="Slicers"
        empty={slicers.length === 0 ? 'No G-code file names its slicer yet.' : undefined}
        legend={slicers.map((row) => ({ ...row, value: `${row.value.toLocaleString()} G-code files` }))}
      >
        <Center>
          <DonutChart data={slicers} size={160} thickness={24} withTooltip={false} />
        </Center>
      </ChartCard>
      <ChartCard
        title="Space saved by deduplication"
        legend={dedup.map((row) => ({ ...row, value: formatBytes(row.value) }))}
      >
        <Center>
          <DonutChart
            data={stored + saved > 0 ? dedup : [{ name: 'Nothing stored', value: 1, color: 'gray.4' }]}
            size={160}
            thickness={24}
            withTooltip={false}
            chartLabel={`${savedShare}% saved`}
          />
        </Center>
      </ChartCard>
    </SimpleGrid>
  )
}
