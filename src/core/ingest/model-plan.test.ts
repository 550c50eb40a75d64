import { describe, expect, it } from 'vitest'
import { folderInModel, inSendingOrder, isModelReadme, makesModel, sendingRank } from './model-plan.js'

describe('the rules a folder import and a zip group files into models by', () => {
  it('lets only meshes, G-code and CAD files make a model; configs, pictures and documents never do', () => {
    for (const path of ['a/b.stl', 'B.3MF', 'c.obj', 'd.gcode', 'e.gco', 'f.step', 'g.stp'])
      expect(makesModel(path), path).toBe(true)
    for (const path of ['PrusaSlicer_config.ini', 'logo.svg', 'photo.jpg', 'manual.pdf', 'README', 'notes.md'])
      expect(makesModel(path), path).toBe(false)
  })

  it('sends meshes, then G-code and CAD, then other parts, then pictures and documents, keeping the order within each', () => {
    const paths = ['README.md', 'x/config.ini', 'photo.png', 'b.gcode', 'a.stl', 'part.step', 'z.obj', 'y.ini']
    expect(inSendingOrder(paths, (path) => path)).toEqual([
      'a.stl',
      'z.obj',
      'b.gcode',
      'part.step',
      'x/config.ini',
      'y.ini',
      'README.md',
      'photo.png',
    ])
    expect(paths.map(sendingRank)).toEqual([3, 2, 3, 1, 0, 1, 0, 2])
  })

  it('puts each file in its folder below the model root, in the one form the vault keeps', () => {
    expect(folderInModel('Toys/Dragon', 'Toys/Dragon/stls/nested/tail.stl')).toBe('stls/nested')
    expect(folderInModel('Toys/Dragon/', 'Toys/Dragon/body.stl')).toBe('')
    expect(folderInModel('', 'supported/part.stl')).toBe('supported')
    // A model of one file, and the pictures beside it: at its top.
    expect(folderInModel('Prints/a.stl', 'Prints/a.stl')).toBe('')
    expect(folderInModel('Prints/a.stl', 'Prints/A.png')).toBe('')
    // Not confused by a sibling folder whose name starts the same.
    expect(folderInModel('Toys/Dragon', 'Toys/Dragon 2/x/body.stl')).toBe('')
    expect(folderInModel('', 'a\\b/c.stl')).toBe('a/b')
  })

  it("takes a README at the model's top folder as its README, under any of its usual names", () => {
    for (const name of ['README', 'README.md', 'readme.txt', 'ReadMe.markdown'])
      expect(isModelReadme('', name), name).toBe(true)
    expect(isModelReadme('docs', 'README.md')).toBe(false)
    for (const name of ['README.pdf', 'readme-first.md', 'notes.md']) expect(isModelReadme('', name), name).toBe(false)
  })
})
