/** What operations reach below them: the instances built once at start-up (see app.ts). */
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import type { Accounts } from '../accounts/accounts.js';
import type { Jobs } from '../jobs/jobs.js';
import type { HttpClient } from '../net/http.js';
import type { Logger } from '../log.js';
import type { ChatModel } from '../ai/chat.js';
import type { SpeechToText } from '../ai/stt.js';
import type { Renderer } from '../web/render/browser-pool.js';
import type { WatchStore } from '../watches/watches.js';

export interface Services {
  config: Config;
  store: Store;
  accounts: Accounts;
  jobs: Jobs;
  http: HttpClient;
  log: Logger;
  /** The configured language model (GLEANER_LLM_URL), when there is one. */
  chat?: ChatModel;
  /** The configured speech-to-text endpoint (GLEANER_STT_URL), when there is one. */
  stt?: SpeechToText;
  /** Renders JavaScript pages in a browser, launched on first need (absent in tools built without one). */
  renderer?: Renderer;
  /** Watch records (the scheduler that checks them is started by the app). */
  watches: WatchStore;
}
