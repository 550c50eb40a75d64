/**
 * A streaming XML tokenizer, enough for 3MF and OPC parts: elements, attributes, character
 * data, CDATA, comments and processing instructions, with the five predefined entities and
 * character references. It refuses document type declarations (and with them entity
 * definitions and their expansion bombs) and keeps memory flat: a single tag longer than
 * 1 Mi characters is an error, not a reason to buffer it.
 *
 * Every failure is a FormatError('malformed') saying "The XML is not well-formed: …".
 */
import { FormatError } from './types.js'

/** The attributes of the element being opened, reused from tag to tag; read them with `attribute`. */
export interface XmlAttributes {
  names: string[]
  values: string[]
  count: number
}

/** What the tokenizer calls as it meets markup; it holds no tree, so the handler keeps what it needs. */
export interface XmlHandler {
  /** `name` is the local name (any `prefix:` removed); `attributes` is only valid during the call. */
  open(name: string, attributes: XmlAttributes, parent: string | undefined): void
  close(name: string): void
  /** While true, character data is passed to `text`, still entity-encoded. */
  capturingText: boolean
  text(raw: string): void
}

const TAG_NAME = /[^\s/>]+/y
const CLOSE_TAG = /<\/([^\s>]+)\s*>/y
const MAX_PENDING = 1024 * 1024
const INCOMPLETE = -1

export interface XmlTokenizer {
  /** Feeds the next piece of the document; a tag may be split across pieces anywhere. */
  push(text: string): void
  /** Checks that the document ended complete: one root element, every element closed. */
  end(): void
}

/** A tokenizer that reports to `handler` as text is pushed; see the module comment for what it accepts. */
export function createXmlTokenizer(handler: XmlHandler): XmlTokenizer {
  let pending = ''
  const stack: string[] = []
  const locals: string[] = [] // the local names of `stack`
  let sawRoot = false
  const attributes: XmlAttributes = { names: [], values: [], count: 0 }
  const localName = (name: string) => name.slice(name.indexOf(':') + 1)

  /** Handles the markup starting at `lt`; returns where it ends, or INCOMPLETE when the buffer ends first. */
  const markup = (buffer: string, lt: number): number => {
    const next = buffer.charCodeAt(lt + 1)
    if (next === 47 /* / */) {
      CLOSE_TAG.lastIndex = lt
      const match = CLOSE_TAG.exec(buffer)
      if (match === null)
        return buffer.indexOf('>', lt) === -1
          ? INCOMPLETE
          : fail(`a closing tag is malformed near "${buffer.slice(lt, lt + 40)}"`)
      const name = match[1]!
      if (stack.pop() !== name) fail(`</${name}> does not close the open element`)
      handler.close(locals.pop()!)
      return CLOSE_TAG.lastIndex
    }
    if (next === 63 /* ? */) return after(buffer.indexOf('?>', lt), 2)
    if (next === 33 /* ! */) {
      if (buffer.startsWith('<!--', lt)) return after(buffer.indexOf('-->', lt), 3)
      if (buffer.startsWith('<![CDATA[', lt)) {
        const end = buffer.indexOf(']]>', lt)
        if (end !== -1 && handler.capturingText)
          handler.text(
            buffer
              .slice(lt + 9, end)
              .replace(/&/g, '&amp;')
              .replace(/</g, '&lt;'),
          )
        return after(end, 3)
      }
      if (buffer.length - lt < 9) return INCOMPLETE
      return fail('a document type declaration is not allowed in 3MF')
    }
    TAG_NAME.lastIndex = lt + 1
    const nameMatch = TAG_NAME.exec(buffer)
    if (nameMatch === null)
      return lt + 1 >= buffer.length
        ? INCOMPLETE
        : fail(`"<" is not followed by a name near "${buffer.slice(lt, lt + 40)}"`)
    let at = TAG_NAME.lastIndex
    let selfClosing: boolean
    attributes.count = 0
    for (;;) {
      let code = buffer.charCodeAt(at)
      const spaced = isSpace(code)
      while (isSpace(code)) code = buffer.charCodeAt(++at)
      if (code === 62 /* > */ || code === 47 /* / */) {
        selfClosing = code === 47
        if (selfClosing && buffer.charCodeAt(at + 1) !== 62)
          return at + 1 >= buffer.length
            ? INCOMPLETE
            : fail(`"/" is not followed by ">" near "${buffer.slice(lt, lt + 40)}"`)
        at += selfClosing ? 2 : 1
        break
      }
      if (at >= buffer.length) return INCOMPLETE
      if (!spaced) fail(`attributes are not separated by white space near "${buffer.slice(at - 20, at + 20)}"`)
      const equals = buffer.indexOf('=', at)
      if (equals === -1) return INCOMPLETE
      let nameEnd = equals
      while (isSpace(buffer.charCodeAt(nameEnd - 1))) nameEnd--
      const name = buffer.slice(at, nameEnd)
      if (!isName(name)) fail(`"${name.slice(0, 40)}" is not an attribute name`)
      let quoteAt = equals + 1
      while (isSpace(buffer.charCodeAt(quoteAt))) quoteAt++
      const quote = buffer.charCodeAt(quoteAt)
      if (quoteAt >= buffer.length) return INCOMPLETE
      if (quote !== 34 && quote !== 39) fail(`the value of attribute ${name} is not quoted`)
      const close = buffer.indexOf(quote === 34 ? '"' : "'", quoteAt + 1)
      if (close === -1) return INCOMPLETE
      const value = buffer.slice(quoteAt + 1, close)
      if (value.includes('<')) fail(`the value of attribute ${name} contains "<"`)
      attributes.names[attributes.count] = name
      attributes.values[attributes.count++] = value.includes('&') ? decodeEntities(value) : value
      at = close + 1
    }
    const qualified = nameMatch[0]
    const local = localName(qualified)
    if (stack.length === 0 && sawRoot) fail('there is more than one root element')
    sawRoot = true
    handler.open(local, attributes, locals[locals.length - 1])
    if (selfClosing) {
      handler.close(local)
    } else {
      stack.push(qualified)
      locals.push(local)
    }
    return at
  }
  const after = (found: number, length: number) => (found === -1 ? INCOMPLETE : found + length)

  return {
    push(text: string) {
      const buffer = pending + text
      let position = 0
      for (;;) {
        const lt = buffer.indexOf('<', position)
        const textEnd = lt === -1 ? buffer.length : lt
        if (textEnd > position && handler.capturingText) handler.text(buffer.slice(position, textEnd))
        if (lt === -1) {
          position = buffer.length
          break
        }
        const end = markup(buffer, lt)
        if (end === INCOMPLETE) {
          position = lt
          break
        }
        position = end
      }
      pending = buffer.slice(position)
      if (pending.length > MAX_PENDING) fail(`a tag is longer than ${MAX_PENDING} characters`)
    },
    end() {
      if (pending.trim() !== '') fail(`the document ends inside a tag ("${pending.slice(0, 40)}")`)
      if (!sawRoot) fail('the document has no root element')
      if (stack.length > 0) fail(`the document ends before </${stack[stack.length - 1]}>`)
    },
  }
}

const isSpace = (code: number) => code === 32 || code === 10 || code === 9 || code === 13

/** Enough of XML's Name production to reject markup that is not an attribute name. */
function isName(name: string): boolean {
  if (name === '') return false
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index)
    if (isSpace(code) || code === 34 || code === 39 || code === 60 || code === 62 || code === 47 || code === 61)
      return false
  }
  return true
}

function fail(problem: string): never {
  throw new FormatError('malformed', `The XML is not well-formed: ${problem}.`)
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

/** Replaces the predefined entities and character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code =
        entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10)
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[entity] ?? whole
  })
}

/** The value of the attribute named exactly `name`, if present. */
export function attribute(attributes: XmlAttributes, name: string): string | undefined {
  for (let index = 0; index < attributes.count; index++)
    if (attributes.names[index] === name) return attributes.values[index]
  return undefined
}

/** An attribute in some extension namespace, whatever prefix the writer chose (e.g. `p:path`). */
export function prefixedAttribute(attributes: XmlAttributes, localName: string): string | undefined {
  for (let index = 0; index < attributes.count; index++)
    if (attributes.names[index]!.endsWith(`:${localName}`)) return attributes.values[index]
  return undefined
}

/** Runs the tokenizer over a whole small text. */
export function parseXml(text: string, handler: XmlHandler): void {
  const tokenizer = createXmlTokenizer(handler)
  tokenizer.push(text)
  tokenizer.end()
}

/** A handler that only needs opening tags. */
export const openOnly = (open: XmlHandler['open']): XmlHandler => ({
  open,
  close: () => undefined,
  capturingText: false,
  text: () => undefined,
})
