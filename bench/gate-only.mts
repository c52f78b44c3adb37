import { benchGate } from './gate.js';
await benchGate();
