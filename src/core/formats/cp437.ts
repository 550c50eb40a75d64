/**
 * IBM code page 437, the character set of zip entry names written without the UTF-8 flag (general
 * purpose bit 11): what Windows' "Compressed folder" and older zip tools write. Bytes below 0x80 are
 * ASCII; this is the upper half, as the Unicode mapping of IBM437 gives it.
 */
const upperHalf =
  'ÇüéâäàåçêëèïîìÄÅ' +
  'ÉæÆôöòûùÿÖÜ¢£¥₧ƒ' +
  'áíóúñÑªº¿⌐¬½¼¡«»' +
  '░▒▓│┤╡╢╖╕╣║╗╝╜╛┐' +
  '└┴┬├─┼╞╟╚╔╩╦╠═╬╧' +
  '╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀' +
  'αßΓπΣσµτΦΘΩδ∞φε∩' +
  '≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0'

/** Decodes CP437 bytes: ASCII below 0x80, the table above. */
export function decodeCp437(bytes: Uint8Array): string {
  let text = ''
  for (const byte of bytes) text += byte < 0x80 ? String.fromCharCode(byte) : upperHalf[byte - 0x80]
  return text
}
