/** `gleaner keys ...`: create, list, revoke and re-plan API keys in the configured store. */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { openStore } from '../store/store.js';
import { Accounts } from '../accounts/accounts.js';
import { PLAN_NAMES, PLANS, parsePlanName } from '../accounts/plans.js';
import { GleanerError } from '../errors.js';

export async function runKeysCommand(config: Config, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const store = await openStore({ dataDir: config.GLEANER_DATA_DIR, storeUrl: config.GLEANER_STORE_URL });
  const accounts = new Accounts(store);
  try {
    switch (action) {
      case 'create':
        return await create(accounts, rest);
      case 'list':
        return await list(accounts);
      case 'revoke':
        return await revoke(accounts, rest);
      case 'set-plan':
        return await setPlan(accounts, rest);
      default:
        process.stderr.write(`${action ? `Unknown keys action "${action}". ` : ''}Usage: gleaner keys create|list|revoke|set-plan (see gleaner keys --help)\n`);
        return 2;
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
  if (!text) throw new GleanerError('INVALID_REQUEST', `Missing ${missing}. Plans: ${PLAN_NAMES.join(', ')}. Usage: ${usage}`);
  const plan = parsePlanName(text);
  if (!plan) throw new GleanerError('INVALID_REQUEST', `Unknown plan "${text ?? ''}". Plans: ${PLAN_NAMES.join(', ')}.`);
  return plan;
}

async function create(accounts: Accounts, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { plan: { type: 'string' }, name: { type: 'string' }, credits: { type: 'string' }, owner: { type: 'boolean' } } });
  const plan = planArgument(values.plan, '--plan', 'gleaner keys create --plan <plan> [--name <label>] [--credits <n>] [--owner]');
  let monthlyCredits: number | undefined;
  if (values.credits !== undefined) {
    monthlyCredits = Number(values.credits);
    if (!Number.isInteger(monthlyCredits) || monthlyCredits < 0) throw new GleanerError('INVALID_REQUEST', `--credits must be a whole number of credits, not "${values.credits}".`);
  }
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
  if (!id) throw new GleanerError('INVALID_REQUEST', 'Usage: gleaner keys revoke <id>');
  const account = await accounts.revoke(id);
  process.stdout.write(`Revoked ${account.id}.\n`);
  return 0;
}

async function setPlan(accounts: Accounts, args: string[]): Promise<number> {
  const [id, planText] = args;
  if (!id) throw new GleanerError('INVALID_REQUEST', 'Usage: gleaner keys set-plan <id> <plan>');
  const plan = planArgument(planText, 'the plan', 'gleaner keys set-plan <id> <plan>');
  const account = await accounts.setPlan(id, plan);
  const credits = PLANS[plan].monthlyCredits ?? 'unlimited';
  process.stdout.write(`${account.id} is now on the ${plan} plan (${credits} credits a month).\n`);
  return 0;
}
