/** `npx tsx bench/web-render-run.ts`: the rendered-crawl bench alone. */
import { benchRender } from './web-render.js';

await benchRender();
