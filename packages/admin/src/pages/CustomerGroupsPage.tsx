import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { userIdList } from '../price-list-rows';
import { Alert, DataTable, errorOf, Page, RowButton, Status, TextField, useAction, useLoad } from '../ui';

type Group = Schemas['CustomerGroupResponseDto'];
type Member = Schemas['CustomerGroupMemberResponseDto'];

/** Every customer group, in id order. */
export function loadCustomerGroups(): Promise<Group[]> {
  return readAll((page) =>
    client.page(client.api.GET('/customer-groups', { params: { query: { page, page_size: 100 } } })),
  );
}

export function CustomerGroupsPage() {
  const groups = useLoad(loadCustomerGroups, []);
  const [editing, setEditing] = useState<Group | null>(null);
  const [name, setName] = useState('');
  const [members, setMembers] = useState<Group | null>(null);
  const save = useAction();
  const remove = useAction();
  const reset = () => {
    setEditing(null);
    setName('');
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save
      .run(
        async () => {
          if (editing === null) await client.data(client.api.POST('/customer-groups', { body: { name } }));
          else
            await client.data(
              client.api.PUT('/customer-groups/{id}', {
                params: { path: { id: editing.id } },
                body: { name },
              }),
            );
        },
        editing === null ? `Customer group ${name} created.` : `Customer group ${name} saved.`,
      )
      .then((ok) => {
        if (!ok) return;
        reset();
        void groups.reload();
      });
  };

  const del = (group: Group) => {
    if (!window.confirm(`Delete customer group ${group.name}? Its customers leave it.`)) return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/customer-groups/{id}', { params: { path: { id: group.id } } })),
        `Customer group ${group.name} deleted.`,
      )
      .then((ok) => {
        if (!ok) return;
        if (editing?.id === group.id) reset();
        if (members?.id === group.id) setMembers(null);
        void groups.reload();
      });
  };

  return (
    <Page title="Customer groups">
      <p className="hint">
        Price lists can be limited to customer groups: their members pay the list&apos;s prices.
      </p>
      <Alert message={groups.error ?? remove.error} />
      <Status message={remove.status} />
      {groups.data !== null && (
        <DataTable caption="Customer groups" columns={['Name', ['Customers', 'number'], 'Actions']}>
          {groups.data.map((group) => (
            <tr key={group.id}>
              <th scope="row">{group.name}</th>
              <td className="number">{group.customer_count}</td>
              <td className="actions">
                <RowButton
                  label="Edit"
                  of={group.name}
                  onClick={() => {
                    setEditing(group);
                    setName(group.name);
                  }}
                />
                <RowButton label="Members" of={group.name} onClick={() => setMembers(group)} />
                <RowButton
                  label="Delete"
                  of={group.name}
                  danger
                  disabled={remove.busy}
                  onClick={() => del(group)}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="group-form-heading">
        <h2 id="group-form-heading">{editing === null ? 'New customer group' : `Edit ${editing.name}`}</h2>
        <Alert message={save.error} />
        <TextField
          label="Name"
          required
          maxLength={100}
          value={name}
          error={save.fields.name}
          onChange={(event) => setName(event.target.value)}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            {editing === null ? 'Create customer group' : 'Save customer group'}
          </button>
          {editing !== null && (
            <button type="button" onClick={reset}>
              Cancel editing
            </button>
          )}
        </div>
        <Status message={save.status} />
      </form>

      {members !== null && (
        <GroupMembers key={members.id} group={members} onChanged={() => void groups.reload()} />
      )}
    </Page>
  );
}

/** A group's members, and a form adding or removing customers by user id. */
function GroupMembers({ group, onChanged }: { group: Group; onChanged: () => void }) {
  const list = useLoad(
    () =>
      readAll((page) =>
        client.page(
          client.api.GET('/customer-groups/{id}/customers', {
            params: { path: { id: group.id }, query: { page, page_size: 100 } },
          }),
        ),
      ),
    [group.id],
  );
  const [ids, setIds] = useState('');
  const change = useAction();

  const run = (adding: boolean) => {
    const body = { user_ids: userIdList(ids) };
    const path = { params: { path: { id: group.id } }, body };
    void change
      .run(
        async () => {
          if (adding) await client.data(client.api.POST('/customer-groups/{id}/customers', path));
          else await client.data(client.api.DELETE('/customer-groups/{id}/customers', path));
        },
        adding ? `Added to ${group.name}.` : `Removed from ${group.name}.`,
      )
      .then((ok) => {
        if (!ok) return;
        setIds('');
        void list.reload();
        onChanged();
      });
  };

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members of {group.name}</h2>
      <Alert message={list.error} />
      {list.data !== null &&
        (list.data.length === 0 ? (
          <p>No customers in this group yet.</p>
        ) : (
          <DataTable
            caption={`Members of ${group.name}`}
            columns={[['User id', 'number'], 'Username', 'E-mail']}
          >
            {list.data.map((member: Member) => (
              <tr key={member.id}>
                <td className="number">{member.id}</td>
                <th scope="row">{member.username}</th>
                <td>{member.email}</td>
              </tr>
            ))}
          </DataTable>
        ))}
      <form className="stacked" onSubmit={(event) => event.preventDefault()} noValidate>
        <Alert message={change.error} />
        <TextField
          label="User ids"
          hint="Ids from the Customers page, separated by commas, e.g. 7, 12"
          value={ids}
          error={errorOf(change.fields, 'user_ids')}
          onChange={(event) => setIds(event.target.value)}
        />
        <div className="actions">
          <button type="button" className="primary" disabled={change.busy} onClick={() => run(true)}>
            Add to group
          </button>
          <button type="button" disabled={change.busy} onClick={() => run(false)}>
            Remove from group
          </button>
        </div>
        <Status message={change.status} />
      </form>
    </section>
  );
}
