/** Input props that let the browser's folder picker choose a whole folder (every browser the UI supports knows it). */
export const folderInput = { webkitdirectory: '' } as React.ComponentPropsWithoutRef<'input'>
