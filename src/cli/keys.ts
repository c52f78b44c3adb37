/** `gleaner keys ...`: create, list, revoke and re-plan API keys in the configured store. */
import type { Config } from '../config.js';
import { openStore } from '../store/store.js';
import { Accounts } from '../accounts/accounts.js';
import { PLAN_NAMES, PLANS, parsePlanName } from '../accounts/plans.js';
import { GleanerError } from '../errors.js';
import { parseOptions, UsageError } from './usage.js';

/** Each action's options and arguments, checked before the store is opened (a typo touches nothing). */
const ACTIONS = {
  create: (args: string[]) => parseOptions(args, { plan: { type: 'string' }, name: { type: 'string' }, credits: { type: 'string' }, owner: { type: 'boolean' } }),
  list: (args: string[]) => parseOptions(args, {}),
  revoke: (args: string[]) => parseOptions(args, {}, 1),
  'set-plan': (args: string[]) => parseOptions(args, {}, 2),
} as const;

export async function runKeysCommand(config: Config, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (!action || !Object.hasOwn(ACTIONS, action)) {
    throw new UsageError(`${action ? `Unknown keys action "${action}". ` : 'Missing the action. '}Actions: create, list, revoke, set-plan.`);
  }
  const parsed = ACTIONS[action as keyof typeof ACTIONS](rest);
  if (action === 'create') createArguments(parsed.values as CreateValues);
  if (action === 'revoke' && !parsed.positionals[0]) throw new UsageError('Missing the key id. Usage: gleaner keys revoke <id>');
  if (action === 'set-plan') {
    if (!parsed.positionals[0]) throw new UsageError('Missing the key id. Usage: gleaner keys set-plan <id> <plan>');
    planArgument(parsed.positionals[1], 'the plan', 'gleaner keys set-plan <id> <plan>');
  }
  const store = await openStore({ dataDir: config.GLEANER_DATA_DIR, storeUrl: config.GLEANER_STORE_URL });
  const accounts = new Accounts(store);
  try {
    switch (action) {
      case 'create':
        return await create(accounts, parsed.values as CreateValues);
      case 'list':
        return await list(accounts);
      case 'revoke':
        return await revoke(accounts, parsed.positionals);
      default:
        return await setPlan(accounts, parsed.positionals);
    }
  } catch (error) {
    if (error instanceof GleanerError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

function planArgument(text: string | undefined, missing: string, usage: string): (typeof PLAN_NAMES)[number] {
  if (!text) throw new UsageError(`Missing ${missing}. Plans: ${PLAN_NAMES.join(', ')}. Usage: ${usage}`);
  const plan = parsePlanName(text);
  if (!plan) throw new UsageError(`Unknown plan "${text ?? ''}". Plans: ${PLAN_NAMES.join(', ')}.`);
  return plan;
}

interface CreateValues {
  plan?: string;
  name?: string;
  credits?: string;
  owner?: boolean;
}

/** The plan and allowance of `keys create`, or a UsageError naming what is wrong. */
function createArguments(values: CreateValues): { plan: (typeof PLAN_NAMES)[number]; monthlyCredits?: number } {
  const plan = planArgument(values.plan, '--plan', 'gleaner keys create --plan <plan> [--name <label>] [--credits <n>] [--owner]');
  if (values.credits === undefined) return { plan };
  const monthlyCredits = Number(values.credits);
  if (!/^\d+$/.test(values.credits) || !Number.isSafeInteger(monthlyCredits)) throw new UsageError(`--credits must be a whole number of credits, not "${values.credits}".`);
  return { plan, monthlyCredits };
}

async function create(accounts: Accounts, values: CreateValues): Promise<number> {
  const { plan, monthlyCredits } = createArguments(values);
  // --owner: the key also manages keys and plans in the web console (accounts/roles.ts).
  const { account, apiKey } = await accounts.create({ plan, name: values.name, monthlyCredits, role: values.owner ? 'owner' : 'member' });
  // The key alone on stdout, so a script can capture it; the rest is for the person.
  process.stdout.write(`${apiKey}\n`);
  process.stderr.write(`Created ${values.owner ? 'owner ' : ''}key ${account.id} (${plan} plan). Store it now: it is not shown again.\n`);
  return 0;
}

async function list(accounts: Accounts): Promise<number> {
  const rows = await accounts.list();
  if (rows.length === 0) {
    process.stdout.write('No keys. Create one with: gleaner keys create --plan Free\n');
    return 0;
  }
  process.stdout.write(['id', 'key', 'plan', 'credits used/allowance', 'name', 'created', 'status'].join('\t') + '\n');
  for (const account of rows) {
    const balance = await accounts.balance(account);
    const allowance = balance.allowance ?? 'unlimited';
    process.stdout.write(
      [account.id, `${account.keyPrefix}…`, account.plan, `${balance.used}/${allowance}`, account.name || '-', account.createdAt, account.revokedAt ? `revoked ${account.revokedAt}` : 'active'].join('\t') + '\n',
    );
  }
  return 0;
}

async function revoke(accounts: Accounts, args: string[]): Promise<number> {
  const [id] = args;
  const account = await accounts.revoke(id);
  process.stdout.write(`Revoked ${account.id}.\n`);
  return 0;
}

async function setPlan(accounts: Accounts, args: string[]): Promise<number> {
  const [id, planText] = args;
  const plan = planArgument(planText, 'the plan', 'gleaner keys set-plan <id> <plan>');
  const account = await accounts.setPlan(id, plan);
  const credits = PLANS[plan].monthlyCredits ?? 'unlimited';
  process.stdout.write(`${account.id} is now on the ${plan} plan (${credits} credits a month).\n`);
  return 0;
}
