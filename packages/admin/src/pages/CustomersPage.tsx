import { useEffect, useRef, useState } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, succeed } from '../client';
import { formatDateTime } from '../format';
import { navigate, useLocation } from '../router';
import { listQuery } from '../routes';
import {
  ActiveCells,
  Alert,
  DataTable,
  Filters,
  Page,
  Pagination,
  RowButton,
  SearchField,
  Status,
  useAction,
  useLoad,
} from '../ui';

type User = Schemas['UserResponseDto'];
const PAGE_SIZE = 20;

/**
 * A customer's live sessions (`GET /users/{id}/sessions`), to revoke one by one or all at once. Revoking ends
 * their tokens and WebSocket connections at once; the account stays active (deactivate it to keep them out).
 */
function CustomerSessions({
  user,
  changes,
  onClose,
}: {
  user: User;
  /** Counts the account's changes made on this page (deactivating ends every session): each reads them again. */
  changes: number;
  onClose: () => void;
}) {
  const [page, setPage] = useState(1);
  const path = { id: user.id };
  const sessions = useLoad(
    () =>
      client.page(
        client.api.GET('/users/{id}/sessions', { params: { path, query: { page, page_size: 10 } } }),
      ),
    [user.id, page, changes],
  );
  const revoke = useAction();
  const run = (call: () => Promise<unknown>, done?: string) =>
    void revoke.run(call, done).then((ok) => {
      if (ok) void sessions.reload();
    });
  // Opened from a row's button: the keyboard goes on from the panel's heading.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  return (
    <section id="customer-sessions" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading" ref={heading} tabIndex={-1}>
        Sessions of {user.username}
      </h2>
      <div className="actions">
        <button type="button" onClick={() => void sessions.reload()}>
          Refresh sessions
        </button>
        <RowButton
          label="Revoke all sessions"
          of={`of ${user.username}`}
          danger
          disabled={revoke.busy || sessions.data?.meta.total === 0}
          onClick={() =>
            run(async () => {
              const { revoked } = await client.data(
                client.api.DELETE('/users/{id}/sessions', { params: { path } }),
              );
              revoke.setStatus(
                `${revoked} ${revoked === 1 ? 'session' : 'sessions'} of ${user.username} revoked.`,
              );
            })
          }
        />
        <button type="button" onClick={onClose}>
          Close sessions
        </button>
      </div>
      <Alert message={sessions.error ?? revoke.error} />
      <Status message={revoke.status} />
      {sessions.data !== null &&
        (sessions.data.data.length === 0 ? (
          <p>{user.username} has no live session.</p>
        ) : (
          <DataTable
            caption={`Live sessions of ${user.username}, most recently used first`}
            columns={['Signed in', 'Last used', 'Expires', 'Browser', 'Address', 'Actions']}
          >
            {sessions.data.data.map((session) => (
              <tr key={session.id}>
                <th scope="row">{formatDateTime(session.created_at)}</th>
                <td>{formatDateTime(session.last_used_at)}</td>
                <td>{formatDateTime(session.expires_at)}</td>
                <td>{session.user_agent}</td>
                <td>{session.ip}</td>
                <td>
                  <RowButton
                    label="Revoke"
                    of={`session of ${user.username} from ${formatDateTime(session.created_at)}`}
                    danger
                    disabled={revoke.busy}
                    onClick={() =>
                      run(
                        () =>
                          succeed(
                            client.api.DELETE('/users/{id}/sessions/{sessionId}', {
                              params: { path: { id: user.id, sessionId: session.id } },
                            }),
                          ),
                        `Session of ${user.username} from ${formatDateTime(session.created_at)} revoked.`,
                      )
                    }
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        ))}
      {sessions.data !== null && <Pagination meta={sessions.data.meta} onPage={setPage} />}
    </section>
  );
}

export function CustomersPage() {
  const location = useLocation();
  const search = location.search.get('search') ?? '';
  const page = Math.max(1, Number.parseInt(location.search.get('page') ?? '1', 10) || 1);
  const query = { page, page_size: PAGE_SIZE, ...(search.trim() !== '' && { search: search.trim() }) };
  const users = useLoad(
    () => client.page(client.api.GET('/users', { params: { query } })),
    [JSON.stringify(query)],
  );
  const toggle = useAction();
  const [shown, setShown] = useState<User | null>(null);
  const [changes, setChanges] = useState(0);

  const go = (changes: { search?: string; page?: number }) => {
    navigate(`/customers${listQuery({ search: changes.search ?? search, page: changes.page ?? 1 })}`, {
      replace: true,
    });
  };

  const setActive = (user: User, active: boolean) =>
    void toggle
      .run(
        () =>
          client.data(
            client.api.PUT('/users/{id}', { params: { path: { id: user.id } }, body: { is_active: active } }),
          ),
        `${user.username} ${active ? 'activated' : 'deactivated'}.`,
      )
      .then((ok) => {
        if (!ok) return;
        void users.reload();
        setChanges((count) => count + 1);
      });

  return (
    <Page title="Customers">
      <Filters label="Customer filters">
        <SearchField
          label="Search"
          hint="Username, e-mail, first or last name"
          initial={search}
          onSearch={(text) => go({ search: text })}
        />
      </Filters>
      <Alert message={users.error ?? toggle.error} />
      <Status message={toggle.status} />
      {users.data !== null && (
        <>
          {users.data.data.length === 0 ? (
            <p>No accounts found.</p>
          ) : (
            <DataTable
              caption="Accounts"
              columns={['Username', 'Name', 'E-mail', 'Role', 'Joined', 'State', 'Actions']}
            >
              {users.data.data.map((user) => (
                <tr key={user.id}>
                  <th scope="row">{user.username}</th>
                  <td>{`${user.first_name} ${user.last_name}`.trim()}</td>
                  <td>
                    {user.email}
                    {!user.email_verified && <span className="sub"> (not verified)</span>}
                  </td>
                  <td>{user.role}</td>
                  <td>{formatDateTime(user.created_at)}</td>
                  <ActiveCells
                    active={user.is_active}
                    of={user.username}
                    busy={toggle.busy}
                    onToggle={(active) => setActive(user, active)}
                  >
                    <RowButton
                      id={`sessions-of-${user.id}`}
                      label="Sessions"
                      of={`of ${user.username}`}
                      aria-expanded={shown?.id === user.id}
                      aria-controls={shown?.id === user.id ? 'customer-sessions' : undefined}
                      onClick={() => setShown(shown?.id === user.id ? null : user)}
                    />
                  </ActiveCells>
                </tr>
              ))}
            </DataTable>
          )}
          <Pagination meta={users.data.meta} onPage={(to) => go({ page: to })} />
        </>
      )}
      {shown !== null && (
        <CustomerSessions
          key={shown.id}
          user={shown}
          changes={changes}
          onClose={() => {
            setShown(null);
            document.getElementById(`sessions-of-${shown.id}`)?.focus();
          }}
        />
      )}
    </Page>
  );
}
