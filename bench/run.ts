/** `npm run bench`: every benchmark, printing figures (nothing here asserts a time). */
import { benchGate } from './gate.js';
import { benchWeb } from './web.js';
import { benchScale } from './web-scale.js';
import { benchCli } from './cli.js';
import { benchHealthz } from './healthz.js';

await benchGate();
await benchHealthz();
await benchWeb();
await benchScale();
await benchCli();
