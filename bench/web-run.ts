/** `npx tsx bench/web-run.ts`: the web benchmarks alone. */
import { benchWeb } from './web.js';

await benchWeb();
