import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import busboy from 'busboy'
import { VaultError } from '../../core/errors.js'
import {
  badMultipartField as badField,
  type MultipartFile,
  type MultipartUpload,
  malformedMultipart as malformed,
  type ReadMultipart,
  unescapeFormFileName,
} from '../../core/ingest/multipart.js'
import { payloadTooLarge } from '../../core/ingest/upload-limit.js'

/**
 * The file part as a web stream with backpressure. It closes only once the whole form has been
 * read (`formRead`), and fails with the form's 4xx error (or the 413 of the size limit) rather
 * than busboy's bare "Unexpected end of form".
 *
 * Once the web stream is closed, errored or cancelled, busboy may still hand over data it had
 * buffered, its end or an error (a body cut mid-way does all three): the controller is not
 * touched again, since a throw from an event handler is uncaught and ends the process.
 */
function fileBytes(file: Readable, formRead: Promise<void>, abandonForm: () => void): ReadableStream<Uint8Array> {
  let finished = false
  const finish = (end: () => void) => {
    if (finished) return
    finished = true
    end()
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      file.on('data', (chunk: Buffer) => {
        if (finished) return
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        if ((controller.desiredSize ?? 0) <= 0) file.pause()
      })
      file.on('end', () =>
        formRead.then(
          () => finish(() => controller.close()),
          (error: unknown) => finish(() => controller.error(error)),
        ),
      )
      file.on('error', (error) =>
        finish(() =>
          controller.error(
            error instanceof VaultError ? error : malformed(`The upload was cut off: ${error.message}.`),
          ),
        ),
      )
    },
    pull() {
      file.resume()
    },
    cancel() {
      finished = true
      // The rest of the form is not wanted either: stop parsing, or busboy waits on the file forever.
      abandonForm()
    },
  })
}

/**
 * Streams a multipart body through busboy: the file part is handed over as a web stream
 * while the body is still arriving, so memory stays flat. busboy only marks an oversize
 * file as truncated; here that becomes a 413 error on the file stream, so nothing is stored.
 */
export const readMultipartWithBusboy: ReadMultipart = (request, { maxFileBytes }) => {
  let resolveForm!: () => void
  let rejectForm!: (error: unknown) => void
  // Settles when the whole form has been read: the file's stream ends only then, so a body
  // cut after the file's last byte fails the file too, before anything is kept.
  const formRead = new Promise<void>((resolve, reject) => {
    resolveForm = resolve
    rejectForm = reject
  })
  formRead.catch(() => {})
  let resolveFile!: (file: MultipartFile | null) => void
  let rejectFile!: (error: unknown) => void
  const file = new Promise<MultipartFile | null>((resolve, reject) => {
    resolveFile = resolve
    rejectFile = reject
  })
  const upload: MultipartUpload = {
    file,
    fields: new Promise((resolveFields, rejectFields) => {
      // The file part being read, if any: a form that fails fails its file too, so a reader of
      // a body cut mid-way gets the 400 rather than waiting for bytes that will never come.
      let filePart: Readable | undefined
      const fail = (error: unknown) => {
        rejectFile(error)
        rejectFields(error)
        rejectForm(error)
        filePart?.destroy(error instanceof Error ? error : undefined)
      }
      let parser: busboy.Busboy
      try {
        parser = busboy({
          headers: Object.fromEntries(request.headers),
          // Browsers send UTF-8 file names; busboy would read them as latin1.
          defParamCharset: 'utf8',
          limits: { files: 1, fileSize: maxFileBytes, fields: 20, fieldSize: 64 * 1024, parts: 25 },
        })
      } catch {
        return fail(malformed('The body is not multipart/form-data with a boundary.'))
      }
      const fields: Record<string, string> = {}
      let sawFile = false
      parser.on('file', (name, stream, info) => {
        if (name !== 'file' || sawFile) {
          stream.resume()
          return fail(badField(`Unexpected file field "${name}": send exactly one file, in the field "file".`))
        }
        sawFile = true
        filePart = stream
        stream.on('limit', () => stream.destroy(payloadTooLarge(maxFileBytes)))
        resolveFile({
          filename: info.filename === undefined ? 'upload' : unescapeFormFileName(info.filename),
          contentType: info.mimeType,
          stream: fileBytes(stream, formRead, () => {
            const abandoned = malformed('The upload was abandoned before its end.')
            fail(abandoned)
            parser.destroy(abandoned)
          }),
          fieldsBefore: { ...fields },
        })
      })
      parser.on('field', (name, value, info) => {
        if (info.valueTruncated) return fail(badField(`The field "${name}" is too long.`))
        fields[name] = value
      })
      parser.on('filesLimit', () => fail(badField('Send exactly one file, in the field "file".')))
      parser.on('fieldsLimit', () => fail(badField('Too many fields.')))
      parser.on('partsLimit', () => fail(badField('Too many parts.')))
      parser.on('error', (error: Error) => fail(malformed(`The multipart body is malformed: ${error.message}.`)))
      parser.on('close', () => {
        if (!sawFile) resolveFile(null)
        resolveFields(fields)
        resolveForm()
      })
      if (!request.body) return fail(malformed('The body is empty.'))
      const body = Readable.fromWeb(request.body as NodeWebStream<Uint8Array>)
      body.on('error', (error) => fail(malformed(`The upload was cut off: ${error.message}.`)))
      body.pipe(parser)
    }),
  }
  // A caller that stops at the file must not see an unhandled rejection from the fields.
  upload.fields.catch(() => {})
  file.catch(() => {})
  return upload
}
