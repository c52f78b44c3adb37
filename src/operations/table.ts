/** The table of operations: every surface is generated from this list. */
import type { AnyOperation } from './define.js';
import { account, jobStatus } from './account.js';

export const OPERATIONS: AnyOperation[] = [account, jobStatus];
