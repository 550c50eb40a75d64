import type { Reporter, TestModule } from 'vitest/node'

/** A test file whose tests run longer than this fails the run: split it, or move its cases to a cheaper layer. */
const fileBudgetMs = 90_000
const slowestShown = 15

/**
 * Prints the slowest test files at the end of every run (their whole time, and their tests' own),
 * and fails the run when one file's tests take longer than the budget, so a slow file is seen when
 * it is written rather than when CI's time runs out. The budget counts the tests, not the hooks:
 * a `beforeAll` mostly waits for fixtures built once per source state and shared by many files
 * (the build, the packed package, the other Node lines), which whichever file comes first pays for.
 */
export default class FileTimeReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timed = testModules
      .map((module) => ({
        file: `${module.project.name} ${module.relativeModuleId}`,
        ms: module.diagnostic().duration,
        testsMs: [...module.children.allTests()].reduce((sum, test) => sum + (test.diagnostic()?.duration ?? 0), 0),
      }))
      .sort((a, b) => b.ms - a.ms)
    if (timed.length === 0) return
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`
    const line = ({ file, ms, testsMs }: (typeof timed)[number]) => `${seconds(ms)} ${seconds(testsMs)}  ${file}`
    console.log(
      `\nSlowest test files (whole file, its tests alone):\n${timed.slice(0, slowestShown).map(line).join('\n')}`,
    )
    const overBudget = timed.filter(({ testsMs }) => testsMs > fileBudgetMs)
    if (overBudget.length > 0) {
      console.error(
        `\nTest files whose tests take over the ${fileBudgetMs / 1000} s budget (split them, or test at a cheaper layer):\n${overBudget.map(line).join('\n')}`,
      )
      process.exitCode = 1
    }
  }
}
