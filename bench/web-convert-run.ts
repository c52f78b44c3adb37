/** `npx tsx bench/web-convert-run.ts`: the scrape conversion bench alone, against its baseline commit. */
import { benchConversion } from './web-convert.js';

await benchConversion();
