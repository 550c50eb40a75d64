import type { EncodedAsset, UiAssetEncoding } from '../core/ui-files.js'

/**
 * The precompressed encodings an `Accept-Encoding` header takes, best first (Brotli, then gzip).
 * A coding with `q=0` is refused; `*` takes both; no header takes neither (RFC 9110 §12.5.3).
 */
export function acceptedEncodings(header: string | undefined): UiAssetEncoding[] {
  const weights = new Map<string, number>()
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase())
    const q = params.find((param) => param.startsWith('q='))
    weights.set(name, q ? Number(q.slice(2)) : 1)
  }
  const takes = (coding: string) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0
  return (['br', 'gzip'] as const).filter((encoding) => takes(encoding))
}

/**
 * The body is already encoded as its `Content-Encoding` says. Workers (workerd) would otherwise
 * encode it again, sending gzip around the Brotli file; other runtimes ignore the field.
 */
const alreadyEncoded = { encodeBody: 'manual' } as ResponseInit

/** A 200 with a file as the runtime holds it: `Content-Encoding` when compressed, and `Vary` for caches either way. */
export function encodedAnswer(asset: EncodedAsset, headers: Record<string, string>): Response {
  const answerHeaders = new Headers({ ...headers, Vary: 'Accept-Encoding' })
  if (!asset.encoding) return new Response(asset.body, { headers: answerHeaders })
  answerHeaders.set('Content-Encoding', asset.encoding)
  return new Response(asset.body, { headers: answerHeaders, ...alreadyEncoded })
}
