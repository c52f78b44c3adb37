/** `npm run bench`: every benchmark, printing figures (nothing here asserts a time). */
import { benchGate } from './gate.js';
import { benchWeb } from './web.js';
import { benchRender } from './web-render.js';
import { benchQuality } from './web-quality.js';
import { benchScale } from './web-scale.js';
import { benchCli, benchFirstStart } from './cli.js';
import { benchDocuments } from './documents.js';
import { benchHealthz } from './healthz.js';
import { benchStoreRedis } from './store-redis.js';
import { benchTranscriptSearch } from './transcript-search.js';

await benchGate();
await benchHealthz();
await benchStoreRedis();
await benchWeb();
await benchRender();
await benchQuality();
await benchScale();
await benchCli();
await benchFirstStart();
await benchDocuments();
await benchTranscriptSearch();
