/** bench/gate.ts's slow-disk half, in a process started with bench/slow-fsync.c preloaded. */
import { gateOnThisDisk } from './gate.js';

if (!process.env.LD_PRELOAD || !process.env.GLEANER_BENCH_FSYNC_MS) throw new Error('run by bench/gate.ts, with the slow-fsync library preloaded');
await gateOnThisDisk(`every fsync ${process.env.GLEANER_BENCH_FSYNC_MS} ms (slow disk)`);
