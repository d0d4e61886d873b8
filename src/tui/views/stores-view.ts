import { storeStatus } from '../state.js';
import { box, type Frame } from '../styled.js';
import { renderTable, type TableRow } from '../table.js';
import { statusRole } from './common.js';
import type { ViewContext } from './view-context.js';

// The stores pane: every store with type, model, dimension, roles, sources, chunks and status.

export function storesPane(v: ViewContext, width: number, height: number): Frame {
  const s = v.state;
  const focused = s.focus === 'stores' && s.dialogs.length === 0;
  const rows: TableRow[] = s.stores.map((st) => {
    const status = storeStatus(st, s.job, s.external, s.storeHealth);
    return {
      cells: [
        { text: st.name },
        st.type,
        { text: st.modelId, role: 'dimmed' },
        String(st.fingerprint.dimension),
        st.roles.join(',') || '-',
        String(st.sources.length),
        st.sources.reduce((n, x) => n + x.chunks, 0).toLocaleString('en-US'),
        { text: status, role: statusRole(status) },
      ],
    };
  });
  const body = renderTable({
    columns: [
      { header: 'NAME', flex: 2, min: 6 },
      { header: 'TYPE', width: 6 },
      { header: 'MODEL', flex: 3, min: 8 },
      { header: 'DIM', width: 5, align: 'right' },
      { header: 'ROLES', width: 11 },
      { header: 'SRC', width: 3, align: 'right' },
      { header: 'CHUNKS', width: 7, align: 'right' },
      { header: 'STATUS', width: 11 },
    ],
    rows,
    width: width - 2,
    height: height - 2,
    selected: s.storeSel,
    focused,
    empty: s.loaded ? `No knowledge stores yet. Press ${v.key('stores.create')} to create one.` : 'Loading…',
  });
  return box({
    title: `Stores (${s.stores.length})`,
    width,
    height,
    body,
    border: focused ? 'activeBorder' : 'inactiveBorder',
    titleRole: 'paneTitle',
    footer: s.stores.length > 0 ? `${s.storeSel + 1} of ${s.stores.length}` : undefined,
  });
}
