import { createInterface } from 'node:readline'
import { type components, createVaultClient } from '../client/index.js'
import { configFilePath, hookConfig } from './vault-client-config.js'

type Suggestion = components['schemas']['MergeSuggestion']

export interface MergeSuggestionOptions {
  json: boolean
  merge: boolean
  yes: boolean
}

const reasonText: Record<Suggestion['reasons'][number], string> = {
  same_name: 'the same name',
  gcode_names_mesh: "a G-code names the other's mesh",
}

const files = (count: number) => (count === 1 ? '1 file' : `${count} files`)

/** One group as people read it: where the others would go, and why. */
function describe(suggestion: Suggestion, index: number): string {
  const { target, others } = suggestion
  return [
    `${index + 1}. ${target.name}  (${files(target.file_count)}, ${target.id})  ← ${suggestion.reasons.map((r) => reasonText[r]).join('; ')}`,
    ...others.map((model) => `     + ${model.name}  (${files(model.file_count)}, ${model.id})`),
  ].join('\n')
}

/**
 * `model-vault models merge-suggestions`: the groups of models that look like one (split by an
 * earlier version: one model per file, or a G-code apart from its mesh), listed; with `--merge`,
 * each merged into its target after a y/N question (`--yes`: without asking). Never silently.
 * Answers the exit code.
 */
export async function runMergeSuggestionsCommand(
  options: MergeSuggestionOptions,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const config = hookConfig(env)
  if (!config) {
    process.stderr.write(
      `model-vault: not set up: set MODEL_VAULT_URL and MODEL_VAULT_API_KEY in the environment or in ${configFilePath(env)}\n`,
    )
    return 2
  }
  const vault = createVaultClient({ baseUrl: config.url, token: config.key })
  const listed = await vault.GET('/api/v1/models/merge-suggestions', { params: { query: { limit: 200 } } })
  if (!listed.data) return failed(listed)
  const { groups, total } = listed.data
  if (options.json) {
    process.stdout.write(`${JSON.stringify(listed.data, null, 2)}\n`)
    if (!options.merge) return 0
  } else {
    process.stdout.write(
      groups.length === 0
        ? 'No models look like one another.\n'
        : `${total} group${total === 1 ? '' : 's'} of models look like one model${total > groups.length ? ` (the first ${groups.length} shown)` : ''}:\n\n${groups.map(describe).join('\n\n')}\n`,
    )
  }
  if (!options.merge) return 0
  // Answers are read as lines, buffered: piped answers ("y\nn\n") arrive before the questions.
  const input = options.yes ? undefined : createInterface({ input: process.stdin })
  const answers = input?.[Symbol.asyncIterator]()
  const confirmed = async (question: string) => {
    if (!answers) return true
    process.stdout.write(question)
    const answer = await answers.next()
    return !answer.done && /^y(es)?$/i.test(answer.value.trim())
  }
  let merged = 0
  try {
    for (const [index, group] of groups.entries()) {
      const question = `\nMerge ${group.others.map((m) => `"${m.name}"`).join(', ')} into "${group.target.name}" (group ${index + 1})? [y/N] `
      if (!(await confirmed(question))) continue
      const done = await vault.POST('/api/v1/models/{id}/merge', {
        params: { path: { id: group.target.id } },
        body: { model_ids: group.others.map((model) => model.id) },
      })
      if (!done.data) return failed(done)
      merged++
      process.stdout.write(`Merged into "${group.target.name}" (${files(done.data.files.length)}).\n`)
    }
  } finally {
    input?.close()
  }
  process.stdout.write(`${merged} of ${groups.length} groups merged.\n`)
  return 0
}

function failed(answer: { error?: unknown; response: Response }): number {
  const detail = (answer.error as { detail?: string } | undefined)?.detail ?? `HTTP ${answer.response.status}`
  process.stderr.write(`model-vault: the vault refused: ${detail}\n`)
  return 1
}
