import { Alert, Loader, Stack, Title } from '@mantine/core'
import { lazy, type ReactNode, Suspense } from 'react'
import { problemMessage } from '../../api/problem'
import { EmptyVault } from './empty-vault'
import { HealthPanel } from './health-panel'
import { TotalsGrid } from './totals-grid'
import { useLibraryStats } from './use-library-stats'

// The charting library (recharts) is large: it loads with this page only.
const OverviewCharts = lazy(() => import('./overview-charts').then((module) => ({ default: module.OverviewCharts })))

/**
 * The landing page: the library's totals and breakdowns, and the health of the vault. `notices`
 * (from other features: models that look like one) show under the title when they have something to say.
 */
export function OverviewPage({ notices }: { notices?: ReactNode }) {
  const stats = useLibraryStats()
  return (
    <Stack gap="lg">
      <Title order={1}>Overview</Title>
      <Suspense fallback={null}>{notices}</Suspense>
      {stats.isPending && <Loader aria-label="Loading the library's figures" />}
      {stats.isError && (
        <Alert color="red" role="alert" title="Figures not loaded">
          {problemMessage(stats.error)}
        </Alert>
      )}
      {stats.data && stats.data.totals.models === 0 && <EmptyVault />}
      {stats.data && stats.data.totals.models > 0 && (
        <>
          <TotalsGrid totals={stats.data.totals} />
          <Suspense fallback={<Loader aria-label="Loading charts" />}>
            <OverviewCharts stats={stats.data} />
          </Suspense>
        </>
      )}
      <HealthPanel />
    </Stack>
  )
}
