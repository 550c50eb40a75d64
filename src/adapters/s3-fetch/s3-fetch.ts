import { AwsClient } from 'aws4fetch'
import type { S3Config } from '../../core/config/config.js'

/** A request to the bucket: the object key (absent: the bucket itself), query and body. */
export interface S3Request {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE'
  key?: string
  query?: Record<string, string>
  body?: Uint8Array<ArrayBuffer>
  signal?: AbortSignal
}

/** A bucket's configuration with its keys: a Worker has no default credential chain to find them. */
export type KeyedS3Config = S3Config & { credentials: NonNullable<S3Config['credentials']> }

/** Sends one signed request and answers the response, whatever its status. */
export type S3Fetch = (request: S3Request) => Promise<Response>

/**
 * S3 requests over `fetch`, signed with AWS Signature Version 4 by aws4fetch (Web Crypto): what
 * the Workers build talks to an S3-compatible bucket with (AWS, R2's S3 API, MinIO, …), since the
 * AWS SDK is a Node package here (dependency-cruiser keeps it out of the Worker). Bodies are sent
 * as `UNSIGNED-PAYLOAD`, so no byte is hashed twice; the transport (HTTPS) protects them. Failed
 * requests are not retried here: the callers decide what a failure means.
 */
export function createS3Fetch(config: KeyedS3Config): S3Fetch {
  const signer = new AwsClient({ ...config.credentials, service: 's3', region: config.region, retries: 0 })
  const base = new URL(config.endpoint ?? `https://s3.${config.region}.amazonaws.com`)
  const urlOf = (key: string | undefined, query: Record<string, string>) => {
    const url = new URL(base)
    const path = key === undefined ? '' : `/${encodeKey(key)}`
    if (config.forcePathStyle)
      url.pathname = `${base.pathname.replace(/\/$/, '')}/${encodeSegment(config.bucket)}${path}`
    else {
      url.hostname = `${config.bucket}.${base.hostname}`
      url.pathname = path || '/'
    }
    // Encoded as SigV4 encodes them (a space as `%20`, never `+`), so the bucket reads back what was signed.
    url.search = Object.entries(query)
      .map(([name, value]) => `${encodeSegment(name)}=${encodeSegment(value)}`)
      .join('&')
    return url
  }
  return async ({ method, key, query = {}, body, signal }) =>
    fetch(
      await signer.sign(urlOf(key, query), {
        method,
        body,
        signal,
        headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      }),
    )
}

/**
 * Why a request failed, as S3's error code and the HTTP status (`NoSuchBucket, HTTP 404`): never
 * the endpoint, bucket or credentials, which stay out of records and health. Reads the body (empty
 * for HEAD: `unknown error`).
 */
export async function describeS3Failure(response: Response): Promise<string> {
  const body = await response.text().catch(() => '')
  return `${xmlValue(body, 'Code') ?? 'unknown error'}, HTTP ${response.status}`
}

/** The text of the first `<tag>` in an S3 XML answer, entities decoded; undefined when absent. */
export function xmlValue(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)
  return match?.[1] === undefined ? undefined : decodeXml(match[1])
}

/** Every `<tag>…</tag>` block of an S3 XML answer, as the XML inside it. */
export function xmlBlocks(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1] ?? '')
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16))
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10))
    return entities[name] ?? whole
  })
}

/** RFC 3986 encoding as SigV4 wants it: everything but `A-Za-z0-9-._~`. */
function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

const encodeKey = (key: string) => key.split('/').map(encodeSegment).join('/')
