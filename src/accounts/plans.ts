/** The plans of the spec, exactly: monthly credits, requests a minute and burst (null = unlimited). */
import { z } from 'zod';

export const PLAN_NAMES = ['Free', 'Basic', 'Pro', 'Mega', 'Giga', 'Apex', 'Enterprise'] as const;
export const planName = z.enum(PLAN_NAMES);
export type PlanName = z.infer<typeof planName>;

export interface Plan {
  name: PlanName;
  /** Credits a month; null is unlimited. */
  monthlyCredits: number | null;
  /** Requests a minute (refill rate of the token bucket); null is unlimited. */
  ratePerMinute: number | null;
  /** Bucket size: how many requests may arrive at once. Free and Basic: equal to the rate. */
  burst: number | null;
}

export const PLANS: Record<PlanName, Plan> = {
  Free: { name: 'Free', monthlyCredits: 100, ratePerMinute: 10, burst: 10 },
  Basic: { name: 'Basic', monthlyCredits: 300, ratePerMinute: 30, burst: 30 },
  Pro: { name: 'Pro', monthlyCredits: 3_000, ratePerMinute: 100, burst: 200 },
  Mega: { name: 'Mega', monthlyCredits: 30_000, ratePerMinute: 300, burst: 600 },
  Giga: { name: 'Giga', monthlyCredits: 300_000, ratePerMinute: 600, burst: 1_200 },
  Apex: { name: 'Apex', monthlyCredits: 1_000_000, ratePerMinute: 600, burst: 1_200 },
  Enterprise: { name: 'Enterprise', monthlyCredits: null, ratePerMinute: null, burst: null },
};

/** Most URLs one batch scrape (web_scrape_batch) may name, by plan: a batch is one request of the rate, so its size is bounded here. */
export const MAX_BATCH_SCRAPE_URLS = 100;
export const BATCH_SCRAPE_URLS: Record<PlanName, number> = { Free: 10, Basic: 25, Pro: 50, Mega: 100, Giga: 100, Apex: 100, Enterprise: MAX_BATCH_SCRAPE_URLS };

/** Watches one key may have (active or stopped, until deleted), by plan: see docs/watches.md. */
export const WATCHES_PER_KEY: Record<PlanName, number> = {
  Free: 1,
  Basic: 3,
  Pro: 10,
  Mega: 25,
  Giga: 50,
  Apex: 100,
  Enterprise: 500,
};

/** True when `plan` is at least `required` in the order of PLAN_NAMES. */
export function planAtLeast(plan: PlanName, required: PlanName): boolean {
  return PLAN_NAMES.indexOf(plan) >= PLAN_NAMES.indexOf(required);
}

/** Accepts plan names in any case ("pro", "PRO"), as a CLI user would type them. */
export function parsePlanName(text: string): PlanName | undefined {
  return PLAN_NAMES.find((name) => name.toLowerCase() === text.trim().toLowerCase());
}
