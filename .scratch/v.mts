import { z } from 'zod';
import { httpUrl } from '../src/operations/inputs.js';
import { describeIssues, inputParseOptions } from '../src/gate/validation.js';
const s = z.object({ url: httpUrl, n: z.number().int().min(1).default(3), q: z.string().min(1) });
for (const v of [{}, { url: 'ftp://x', q: '' }, { url: 5, q: 'a' }]) {
  const r = s.safeParse(v, inputParseOptions);
  console.log(describeIssues(r.error!.issues));
}
