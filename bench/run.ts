/** `npm run bench`: every benchmark, printing figures (nothing here asserts a time). */
import { benchGate } from './gate.js';
import { benchWeb } from './web.js';
import { benchQuality } from './web-quality.js';
import { benchScale } from './web-scale.js';
import { benchCli } from './cli.js';

await benchGate();
await benchWeb();
await benchQuality();
await benchScale();
await benchCli();
