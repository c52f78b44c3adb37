/** Input fields several operations share, defined once so their bounds and messages agree. */
import { z } from 'zod';

/** A URL the user gives: http or https only (the SSRF guard checks where it leads). */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' });

/** A BCP 47-like language code: en, de, pt-BR, zh-Hans (pt_BR is accepted too). */
export const languageCode = z.string().max(35).regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, 'must be a language code such as en, de or pt-BR');
