/** `npx tsx bench/web-scale-run.ts`: the scale-out benchmark alone. */
import { benchScale } from './web-scale.js';

await benchScale();
