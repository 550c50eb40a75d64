/**
 * CSV as RFC 4180 describes it: CRLF line ends; a field holding a comma, quote, CR or LF is
 * quoted, quotes doubled. Text that a spreadsheet would run as a formula (starting with
 * `=`, `+`, `-`, `@`, tab or CR, as OWASP's CSV-injection advice lists) gets a leading `'`,
 * so it shows as text. Numbers are written as they are.
 */
export function csvRow(cells: (string | number)[]): string {
  return `${cells.map(csvField).join(',')}\r\n`
}

function csvField(cell: string | number): string {
  const text = typeof cell === 'number' ? String(cell) : neutraliseFormula(cell)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const formulaStart = /^[=+\-@\t\r]/

export function neutraliseFormula(text: string): string {
  return formulaStart.test(text) ? `'${text}` : text
}
