/**
 * Import rules for model-vault, checked by `npm run lint:imports` (part of `npm test`).
 * The layers: adapters → app → routes → core; core and routes stay runtime-free.
 * @type {import('dependency-cruiser').IConfiguration}
 */
/**
 * Packages that need Node (native addons, Node streams and sockets), as resolved paths: npm
 * packages are kept in the graph (not excluded) so that these rules see them, but not followed.
 * Node built-ins are caught by the `dependencyTypes: ['core']` rules below.
 */
const nodeOnlyPackages = '^node_modules/(better-sqlite3|pg|pg-[^/]+|@hono/node-server|busboy|@aws-sdk/[^/]+)/'

/** What runs on workerd: the Workers runtime entry and the runtime-free backends it assembles. */
const workerdCode = '^src/adapters/(workers|d1|r2|s3-fetch|web)/'

/** A runtime assembles backends; no backend or runtime reaches into the CLI, which uses them. */
const runtimeCode = '^src/adapters/'

module.exports = {
  forbidden: [
    {
      name: 'fakes-serve-tests-only',
      comment:
        "A provider's fake (`*.fake.ts`, beside the provider it imitates) is for tests and benchmarks; the service never imports one.",
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.fake\\.ts$' },
      to: { path: '\\.fake\\.ts$' },
    },
    {
      name: 'no-file-circles',
      comment: 'No file may reach itself through its imports, type-only imports included.',
      severity: 'error',
      from: { path: '^(src|web/src)/' },
      to: { circular: true },
    },
    {
      name: 'core-folders-form-a-dag',
      comment: 'The feature folders of src/core depend on each other in one direction only.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/core/' },
      to: { path: '^src/core/', circular: true },
    },
    {
      name: 'core-modules-declare-their-deps',
      comment:
        'Each core module declares the narrow dependencies it takes (accounts-deps.ts, backup-deps.ts…); `Deps` (core/deps.ts) is their sum for the runtime entries and routes, never imported back.',
      severity: 'error',
      from: { path: '^src/core/[^/]+/' },
      to: { path: '^src/core/deps\\.ts$' },
    },
    {
      name: 'core-is-the-bottom-layer',
      comment: 'src/core knows nothing of routes, adapters, the app or any entry point.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(routes|adapters|app\\.ts)' },
    },
    {
      name: 'routes-do-not-reach-adapters',
      comment: 'Routes get backends through injected ports, never by import.',
      severity: 'error',
      from: { path: '^src/(routes/|client/|app\\.ts|index\\.ts)' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'core-and-routes-stay-runtime-free',
      comment: 'Node built-ins and Node-only packages belong in src/adapters/<backend>.',
      severity: 'error',
      from: { path: '^src/(core|routes|client)/|^src/(app|index)\\.ts$' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: nodeOnlyPackages,
      },
    },
    {
      name: 'the-cli-stands-apart',
      comment:
        'The `model-vault` command (src/cli/) uses the runtimes and the typed client; nothing in the service imports it.',
      severity: 'error',
      from: { path: runtimeCode },
      to: { path: '^src/cli/' },
    },
    {
      name: 'workers-adapter-stays-off-node',
      comment:
        'The Cloudflare Workers entry and the backends it assembles (D1, R2, S3 over fetch, the web-standard helpers) run on workerd: no Node built-in, Node-only package or Node-only adapter (test/workers-runtime.test.ts checks the bundle too).',
      severity: 'error',
      from: { path: workerdCode },
      to: {
        dependencyTypesNot: ['type-only'],
        path: [nodeOnlyPackages, '^src/(adapters/(node|fs|postgres|s3|printers)|cli)/'],
      },
    },
    {
      name: 'workers-adapter-no-node-builtins',
      severity: 'error',
      from: { path: workerdCode },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-and-routes-no-node-builtins',
      severity: 'error',
      from: { path: '^src/(core|routes|client)/|^src/(app|index)\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-features-stay-apart',
      comment: 'A web feature uses shared code below it (api/, ui/), never another feature.',
      severity: 'error',
      from: { path: '^web/src/features/([^/]+)/' },
      to: { path: '^web/src/features/', pathNot: '^web/src/features/$1/' },
    },
    {
      name: 'web-shared-code-does-not-reach-up',
      severity: 'error',
      from: { path: '^web/src/(api|ui)/' },
      to: { path: '^web/src/features/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests are entry points like the Node and Workers mains: they assemble the app from adapters
    // (test/support), so the layer rules, which are about shipped code, do not apply to them.
    exclude: { path: ['(^|/)dist/', '\\.test\\.tsx?$', '^test/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
}
