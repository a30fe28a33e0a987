import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { amountStep } from '../format';
import {
  Alert,
  CheckboxField,
  DataTable,
  errorOf,
  Page,
  PriceField,
  RowButton,
  SelectField,
  Status,
  TextArea,
  TextField,
  useAction,
  useLoad,
} from '../ui';
import { loadCustomerGroups } from './CustomerGroupsPage';
import { isoOfLocalInput, listPricesBody, localInputOf, type PriceRow } from '../price-list-rows';

type PriceList = Schemas['PriceListResponseDto'];
type Form = {
  name: string;
  description: string;
  type: 'sale' | 'override';
  status: 'active' | 'draft';
  startsAt: string;
  endsAt: string;
  groupIds: number[];
  rows: PriceRow[];
};
const EMPTY: Form = {
  name: '',
  description: '',
  type: 'sale',
  status: 'draft',
  startsAt: '',
  endsAt: '',
  groupIds: [],
  rows: [],
};
const TYPES = [
  { value: 'sale', label: 'Sale: the lowest of the own price and the list price' },
  { value: 'override', label: 'Override: the list price replaces the own price' },
];
const STATUSES = [
  { value: 'draft', label: 'Draft (applies to no one)' },
  { value: 'active', label: 'Active' },
];
const TARGETS = [
  { value: 'product', label: 'Product id' },
  { value: 'variant', label: 'Variant id' },
];

function formOf(list: PriceList): Form {
  return {
    name: list.name,
    description: list.description ?? '',
    type: list.type,
    status: list.status,
    startsAt: localInputOf(list.starts_at),
    endsAt: localInputOf(list.ends_at),
    groupIds: list.customer_group_ids,
    rows: list.prices.map((price) => ({
      target: price.variant_id === null ? 'product' : 'variant',
      id: String(price.variant_id ?? price.product_id),
      currency: price.currency_code.toUpperCase(),
      amount: String(price.amount),
    })),
  };
}

function datesOf(list: PriceList): string {
  const day = (iso: string) => new Date(iso).toLocaleString();
  if (list.starts_at === null && list.ends_at === null) return 'Always';
  if (list.ends_at === null) return `From ${day(list.starts_at!)}`;
  if (list.starts_at === null) return `Until ${day(list.ends_at)}`;
  return `${day(list.starts_at)} – ${day(list.ends_at)}`;
}

export function PriceListsPage() {
  const lists = useLoad(
    () =>
      readAll((page) =>
        client.page(client.api.GET('/price-lists', { params: { query: { page, page_size: 100 } } })),
      ),
    [],
  );
  const groups = useLoad(loadCustomerGroups, []);
  const [editing, setEditing] = useState<PriceList | null>(null);
  const [form, setForm] = useState<Form>(EMPTY);
  const save = useAction();
  const remove = useAction();
  const set = (changes: Partial<Form>) => setForm((current) => ({ ...current, ...changes }));
  const setRow = (index: number, changes: Partial<PriceRow>) =>
    set({ rows: form.rows.map((row, at) => (at === index ? { ...row, ...changes } : row)) });
  const reset = () => {
    setEditing(null);
    setForm(EMPTY);
  };
  const groupName = (id: number) => groups.data?.find((group) => group.id === id)?.name ?? `#${id}`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name: form.name,
      description: form.description.trim() === '' ? null : form.description,
      type: form.type,
      status: form.status,
      starts_at: isoOfLocalInput(form.startsAt),
      ends_at: isoOfLocalInput(form.endsAt),
      customer_group_ids: form.groupIds,
      prices: listPricesBody(form.rows),
    };
    void save
      .run(
        async () => {
          if (editing === null) await client.data(client.api.POST('/price-lists', { body }));
          else
            await client.data(
              client.api.PUT('/price-lists/{id}', { params: { path: { id: editing.id } }, body }),
            );
        },
        editing === null ? `Price list ${form.name} created.` : `Price list ${form.name} saved.`,
      )
      .then((ok) => {
        if (!ok) return;
        reset();
        void lists.reload();
      });
  };

  const del = (list: PriceList) => {
    if (!window.confirm(`Delete price list ${list.name}? Orders keep the prices they were placed with.`))
      return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/price-lists/{id}', { params: { path: { id: list.id } } })),
        `Price list ${list.name} deleted.`,
      )
      .then((ok) => {
        if (!ok) return;
        if (editing?.id === list.id) reset();
        void lists.reload();
      });
  };

  return (
    <Page title="Price lists">
      <p className="hint">
        An active list gives its prices between its dates, to everyone or to the members of its customer
        groups. A sale price applies when it is lower than the product&apos;s own; an override replaces it
        (the lowest override when several apply). Carts show the change at once; orders keep what they were
        placed with.
      </p>
      <Alert message={lists.error ?? groups.error ?? remove.error} />
      <Status message={remove.status} />
      {lists.data !== null && (
        <DataTable
          caption="Price lists"
          columns={['Name', 'Type', 'Status', 'Dates', 'Customer groups', ['Prices', 'number'], 'Actions']}
        >
          {lists.data.map((list) => (
            <tr key={list.id}>
              <th scope="row">{list.name}</th>
              <td>{list.type === 'sale' ? 'Sale' : 'Override'}</td>
              <td>
                <span className={list.status === 'active' ? 'badge badge-active' : 'badge badge-inactive'}>
                  {list.status === 'active' ? 'Active' : 'Draft'}
                </span>
              </td>
              <td>{datesOf(list)}</td>
              <td>
                {list.customer_group_ids.length === 0
                  ? 'Everyone'
                  : list.customer_group_ids.map(groupName).join(', ')}
              </td>
              <td className="number">{list.prices.length}</td>
              <td className="actions">
                <RowButton
                  label="Edit"
                  of={list.name}
                  onClick={() => {
                    setEditing(list);
                    setForm(formOf(list));
                  }}
                />
                <RowButton
                  label="Delete"
                  of={list.name}
                  danger
                  disabled={remove.busy}
                  onClick={() => del(list)}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="price-list-form-heading">
        <h2 id="price-list-form-heading">{editing === null ? 'New price list' : `Edit ${editing.name}`}</h2>
        <Alert message={save.error} />
        <TextField
          label="Name"
          required
          maxLength={100}
          value={form.name}
          error={save.fields.name}
          onChange={(event) => set({ name: event.target.value })}
        />
        <TextArea
          label="Description"
          maxLength={500}
          value={form.description}
          error={save.fields.description}
          onChange={(event) => set({ description: event.target.value })}
        />
        <SelectField
          label="Type"
          options={TYPES}
          value={form.type}
          error={save.fields.type}
          onChange={(event) => set({ type: event.target.value as Form['type'] })}
        />
        <SelectField
          label="Status"
          options={STATUSES}
          value={form.status}
          error={save.fields.status}
          onChange={(event) => set({ status: event.target.value as Form['status'] })}
        />
        <TextField
          label="Starts at"
          type="datetime-local"
          hint="Empty: from now on"
          value={form.startsAt}
          error={save.fields.starts_at}
          onChange={(event) => set({ startsAt: event.target.value })}
        />
        <TextField
          label="Ends at"
          type="datetime-local"
          hint="Empty: no end"
          value={form.endsAt}
          error={save.fields.ends_at}
          onChange={(event) => set({ endsAt: event.target.value })}
        />
        <fieldset>
          <legend>Customer groups</legend>
          <p className="hint">None ticked: the list is for everyone.</p>
          {(groups.data ?? []).map((group) => (
            <CheckboxField
              key={group.id}
              label={group.name}
              checked={form.groupIds.includes(group.id)}
              onChange={(event) =>
                set({
                  groupIds: event.target.checked
                    ? [...form.groupIds, group.id].sort((a, b) => a - b)
                    : form.groupIds.filter((id) => id !== group.id),
                })
              }
            />
          ))}
          {errorOf(save.fields, 'customer_group_ids') !== undefined && (
            <p className="field-error">{errorOf(save.fields, 'customer_group_ids')}</p>
          )}
        </fieldset>
        <fieldset className="prices">
          <legend>Prices</legend>
          {form.rows.map((row, index) => (
            <div key={index} role="group" aria-label={`Price ${index + 1}`} className="form-row">
              <SelectField
                label={`Priced item of price ${index + 1}`}
                options={TARGETS}
                value={row.target}
                onChange={(event) => setRow(index, { target: event.target.value as PriceRow['target'] })}
              />
              <TextField
                label={`Id of price ${index + 1}`}
                type="number"
                inputMode="numeric"
                min="1"
                step="1"
                required
                value={row.id}
                error={save.fields[`prices.${index}.${row.target}_id`]}
                onChange={(event) => setRow(index, { id: event.target.value })}
              />
              <TextField
                label={`Currency of price ${index + 1}`}
                hint="ISO 4217, e.g. EUR"
                required
                maxLength={3}
                autoCapitalize="characters"
                value={row.currency}
                error={save.fields[`prices.${index}.currency_code`]}
                onChange={(event) => setRow(index, { currency: event.target.value.toUpperCase() })}
              />
              <PriceField
                label={`Amount of price ${index + 1}`}
                required
                min="0"
                step={amountStep(row.currency.trim() === '' ? null : row.currency.trim())}
                value={row.amount}
                error={save.fields[`prices.${index}.amount`]}
                onChange={(event) => setRow(index, { amount: event.target.value })}
              />
              <RowButton
                label="Remove"
                of={`price ${index + 1}`}
                onClick={() => set({ rows: form.rows.filter((_, at) => at !== index) })}
              />
            </div>
          ))}
          <div>
            <button
              type="button"
              onClick={() =>
                set({ rows: [...form.rows, { target: 'product', id: '', currency: '', amount: '' }] })
              }
            >
              Add a price
            </button>
          </div>
        </fieldset>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            {editing === null ? 'Create price list' : 'Save price list'}
          </button>
          {editing !== null && (
            <button type="button" onClick={reset}>
              Cancel editing
            </button>
          )}
        </div>
        <Status message={save.status} />
      </form>
    </Page>
  );
}
