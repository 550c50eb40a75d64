/** The front page of the API reference: conventions every endpoint follows. */
export const apiDescription = `
model-vault keeps 3D-printing files (STL, 3MF, OBJ, STEP, G-code), their thumbnails and metadata,
and sends G-code to networked printers. This one API serves the web UI, slicer post-processing
hooks, scripts and generated clients.

## Conventions

- All paths start with \`/api/v1\`. Within v1, changes are additive: new endpoints, new optional
  request fields and new response fields. Clients must ignore response fields they do not know.
- JSON field names are \`snake_case\`. Timestamps are ISO 8601 in UTC (\`2026-11-21T08:00:00.000Z\`).
  Ids are opaque strings.
- Every response carries an \`X-Request-Id\` header. Send your own (letters, digits, \`-\`, \`_\`, \`=\`;
  up to 255 characters) to correlate a request with the server log; otherwise one is generated.

## Errors

Every error is \`application/problem+json\` ([RFC 9457](https://www.rfc-editor.org/rfc/rfc9457)) with these members:
\`type\` (\`about:blank\`), \`title\`, \`status\`, \`detail\` (a sentence for people), \`code\` (stable, for programs),
\`instance\` (the request path), \`request_id\`, and for validation failures \`errors\`: a list of
\`{path, message}\` naming each offending field (\`body.username\`, \`query.limit\`).

| Status | code | When |
|---|---|---|
| 400 | \`malformed_json\` | The body is not valid JSON. |
| 400 | \`bad_request\` | The request cannot be read for another reason. |
| 404 | \`not_found\` | No such route, or no such resource. |
| 405 | \`method_not_allowed\` | The path exists but not with this method; the \`Allow\` header lists the methods. |
| 409 | (per endpoint) | The request conflicts with the current state. |
| 422 | \`validation_failed\` | The request is well-formed but does not match the schema. |
| 500 | \`internal_error\` | A fault on the server. The answer contains only the request id; details go to the server log. |
| 503 | (health) | A required component is down. |
`.trim()
