import { describeApiReferencePages } from './support/api-reference-pages.js'

describeApiReferencePages('/vault')
