/** `npm run bench`: every benchmark, printing figures (nothing here asserts a time). */
import { benchGate } from './gate.js';

await benchGate();
