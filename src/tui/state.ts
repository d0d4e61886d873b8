import type { InstallProgress } from '../app/models.js';
import type { RunWithStaleness } from '../app/runs.js';
import type { SearchMode } from '../app/search.js';
import type { JobProgress, JobSummary, SourceRecord, StoreConfig } from '../store/store-types.js';
import type { Excerpt, Review } from '../types.js';
import type { HelpRow } from './bindings.js';
import type { Form } from './forms.js';

// The pane's whole state as plain data. Views read it; controllers change it; nothing here does I/O.

export interface Size {
  width: number;
  height: number;
}

export type Level = 'info' | 'ok' | 'warning' | 'error' | 'busy';

export interface Message {
  text: string;
  level: Level;
}

export interface ModelChoice {
  id: string;
  size: number;
  source: string;
}

export interface CatalogRow {
  id: string;
  label: string;
  sizeBytes: number;
  sizeExact: boolean;
  dimension: number;
  languages: string;
  note: string;
  kind: 'download' | 'generated';
  fits: boolean;
  minMemoryBytes: number;
  installed: boolean;
}

export interface JobState {
  op: 'add' | 'update' | 'remove';
  storeId: string;
  storeName: string;
  phase: 'checking' | 'review' | 'indexing';
  /** Sources being added (not in store.json until activation) or updated/removed (ids). */
  adding: { kind: 'file' | 'folder'; path: string }[];
  sourceIds: string[];
  /** Remove jobs: the sources' paths and chunk counts, for the closing message. */
  removing?: { path: string; chunks: number }[];
  progress?: JobProgress;
  cancelling: boolean;
  startedAt: number;
  /** The store was created for this job (Create flow): a cancelled or failed first job removes it
   * and reopens this Create dialog. */
  restore?: CreateDialog;
}

export interface ExternalJob {
  storeId: string;
  storeName: string;
  pid: number;
  state: string;
  percent: number;
}

export interface DirEntry {
  name: string;
  type: 'dir' | 'file' | 'symlink' | 'other';
  /** Where a symlink points (never followed). */
  target?: string;
  size: number;
  hidden: boolean;
  /** A directory name the folder scan never enters (node_modules, .git…). */
  excluded: boolean;
}

export interface CreateDialog {
  kind: 'create';
  form: Form;
  sources: { kind: 'file' | 'folder'; path: string }[];
}

export interface AssistantDialog {
  kind: 'assistant';
  rows: CatalogRow[];
  selected: number;
  memBytes: number;
  task?: { label: string; progress?: InstallProgress; startedAt: number; cancelling: boolean };
  error?: string;
  /** Opened from Create: the installed model goes back into the Create form. */
  fromCreate: boolean;
}

export interface BrowserDialog {
  kind: 'browser';
  mode: 'folder' | 'files' | 'gguf';
  purpose: 'create' | 'store' | 'model';
  dir: string;
  entries: DirEntry[];
  selected: number;
  marked: string[];
  goto?: string;
  /** The line editor's cursor in `goto` (undefined: at the end). */
  gotoCursor?: number;
  error?: string;
  /** What to do with the chosen absolute paths. */
  onChoose: (paths: string[]) => void | Promise<void>;
}

export interface AddSourceDialog {
  kind: 'addSource';
  storeId: string;
  storeName: string;
  inputs: { kind: 'file' | 'folder'; path: string }[];
  form: Form;
}

export interface ScanDialog {
  kind: 'scan';
}

export interface ReviewDialog {
  kind: 'review';
  reviews: { sourceId: string; label: string; kind: 'file' | 'folder'; review: Review }[];
  index: number;
  skippedOnly: boolean;
  selected: number;
}

export interface SummaryDialog {
  kind: 'summary';
  storeName: string;
  op: JobState['op'];
  summary: JobSummary;
  sources: { path: string; status: SourceRecord['status']; reason?: string }[];
  created: boolean;
}

export interface ConfirmDialog {
  kind: 'confirm';
  title: string;
  lines: { text: string; tone?: 'path' | 'statusWarning' | 'statusError' | 'dimmed' }[];
  yes: string;
  onYes: () => void | Promise<void>;
}

export interface MessageDialog {
  kind: 'message';
  title: string;
  text: string;
  level: Level;
}

export interface SearchDialog {
  kind: 'search';
  storeId: string;
  storeName: string;
  query: string;
  /** The line editor's cursor in `query` (undefined: at the end). */
  queryCursor?: number;
  focus: 'query' | 'results';
  mode: SearchMode;
  busy?: string;
  result?: {
    excerpts: Excerpt[];
    block: string;
    ms: number;
    query: string;
    /** What retrieval searched: the query shaped as a terminal selection is. */
    shapedQuery: string;
    mode: SearchMode;
  };
  error?: string;
  selected: number;
  scroll: number;
}

export interface HelpDialog {
  kind: 'help';
  rows: HelpRow[];
  scroll: number;
}

export interface OptionsDialog {
  kind: 'options';
  storeId: string;
  sourceId: string;
  path: string;
  form: Form;
}

export interface RolesDialog {
  kind: 'roles';
  storeId: string;
  storeName: string;
  form: Form;
}

export type Dialog =
  | CreateDialog
  | AssistantDialog
  | BrowserDialog
  | AddSourceDialog
  | ScanDialog
  | ReviewDialog
  | SummaryDialog
  | ConfirmDialog
  | MessageDialog
  | SearchDialog
  | HelpDialog
  | OptionsDialog
  | RolesDialog;

export interface RunsState {
  records: RunWithStaleness[];
  damaged: number;
  selected: number;
  loaded: boolean;
  error?: string;
}

export interface AppState {
  size: Size;
  tab: 'stores' | 'runs';
  focus: 'stores' | 'sources';
  stores: StoreConfig[];
  /** Stores the last search could not use, by id: DAMAGED or UNREACHABLE (shown as their status). */
  storeHealth: Record<string, string>;
  storeSel: number;
  sourceSel: number;
  models: ModelChoice[];
  runs: RunsState;
  job?: JobState;
  external: ExternalJob[];
  message?: Message;
  dialogs: Dialog[];
  /** What an in-flight operation is doing (status line). */
  busy?: string;
  keymapName: string;
  themeName: string;
  loaded: boolean;
}

export function initialState(size: Size, keymapName: string, themeName: string): AppState {
  return {
    size,
    tab: 'stores',
    focus: 'stores',
    stores: [],
    storeHealth: {},
    storeSel: 0,
    sourceSel: 0,
    models: [],
    runs: { records: [], damaged: 0, selected: 0, loaded: false },
    external: [],
    dialogs: [],
    keymapName,
    themeName,
    loaded: false,
  };
}

export const selectedStore = (s: AppState): StoreConfig | undefined => s.stores[s.storeSel];
export const selectedSource = (s: AppState): SourceRecord | undefined =>
  selectedStore(s)?.sources[s.sourceSel];
export const topDialog = (s: AppState): Dialog | undefined => s.dialogs.at(-1);

/** Status of a store as the stores table shows it. */
export function storeStatus(
  store: StoreConfig,
  job: JobState | undefined,
  external: readonly ExternalJob[],
  health: Readonly<Record<string, string>> = {},
): string {
  if (job && job.storeId === store.id) return job.phase === 'indexing' ? 'INDEXING' : 'SCANNING';
  if (external.some((j) => j.storeId === store.id)) return 'SYNCING';
  const h = health[store.id];
  if (h) return h;
  const st = store.sources.map((x) => x.status);
  if (st.includes('ERROR')) return 'ERROR';
  if (st.includes('MISSING')) return 'MISSING';
  if (store.sources.length === 0) return 'EMPTY';
  if (store.sources.every((x) => !x.enabled)) return 'DISABLED';
  return store.sources.some((x) => x.limitedMonitoring) ? 'LIMITED' : 'READY';
}

/** Why a new job cannot start on this store now, or undefined. */
export function jobBlocked(s: AppState, store: StoreConfig | undefined): string | undefined {
  if (!store) return 'no store selected';
  if (s.job) {
    const what = s.job.phase === 'indexing' ? 'indexing' : 'a scan';
    return s.job.storeId === store.id
      ? `${what} is already running for store "${store.name}"`
      : `${what} is running for store "${s.job.storeName}"; one job at a time`;
  }
  const ext = s.external.find((j) => j.storeId === store.id);
  if (ext) return `another process (pid ${ext.pid}) is syncing store "${store.name}"`;
  return undefined;
}
