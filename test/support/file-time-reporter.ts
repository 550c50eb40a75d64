import type { Reporter, TestModule } from 'vitest/node'

/** A test file that runs longer than this fails the run: split it, or move its cases to a cheaper layer. */
const fileBudgetMs = 90_000
const slowestShown = 15

/**
 * Prints the slowest test files at the end of every run, and fails the run when one file's tests
 * took longer than the budget, so a slow file is seen when it is written rather than when CI's
 * time runs out.
 */
export default class FileTimeReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timed = testModules
      .map((module) => ({
        file: `${module.project.name} ${module.relativeModuleId}`,
        ms: module.diagnostic().duration,
      }))
      .sort((a, b) => b.ms - a.ms)
    if (timed.length === 0) return
    const line = ({ file, ms }: { file: string; ms: number }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`
    console.log(`\nSlowest test files:\n${timed.slice(0, slowestShown).map(line).join('\n')}`)
    const overBudget = timed.filter(({ ms }) => ms > fileBudgetMs)
    if (overBudget.length > 0) {
      console.error(
        `\nTest files over the ${fileBudgetMs / 1000} s budget (split them, or test at a cheaper layer):\n${overBudget.map(line).join('\n')}`,
      )
      process.exitCode = 1
    }
  }
}
