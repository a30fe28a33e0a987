import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { countryList } from '../format';
import {
  Alert,
  CheckboxField,
  DataTable,
  errorOf,
  Page,
  RowButton,
  Status,
  TextField,
  useAction,
  useLoad,
} from '../ui';

type Region = Schemas['RegionResponseDto'];
type Form = { name: string; currency: string; countries: string; pricesIncludeTax: boolean };
const EMPTY: Form = { name: '', currency: '', countries: '', pricesIncludeTax: false };

function formOf(region: Region): Form {
  return {
    name: region.name,
    currency: region.currency_code.toUpperCase(),
    countries: region.countries.join(', '),
    pricesIncludeTax: region.prices_include_tax,
  };
}

/** Every region, the default one first (then as the API lists them). */
export function loadRegions(): Promise<Region[]> {
  return readAll((page) =>
    client.page(client.api.GET('/regions', { params: { query: { page, page_size: 100 } } })),
  ).then((regions) => [...regions].sort((a, b) => Number(b.is_default) - Number(a.is_default)));
}

export function RegionsPage() {
  const regions = useLoad(loadRegions, []);
  const [editing, setEditing] = useState<Region | null>(null);
  const [form, setForm] = useState<Form>(EMPTY);
  const save = useAction();
  const remove = useAction();
  const set = (changes: Partial<Form>) => setForm((current) => ({ ...current, ...changes }));
  const reset = () => {
    setEditing(null);
    setForm(EMPTY);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name: form.name,
      currency_code: form.currency.trim().toLowerCase(),
      // In the order typed: the first country stands in for the address until one is known.
      countries: countryList(form.countries),
      prices_include_tax: form.pricesIncludeTax,
    };
    void save
      .run(
        async () => {
          if (editing === null) await client.data(client.api.POST('/regions', { body }));
          else
            await client.data(
              client.api.PUT('/regions/{id}', { params: { path: { id: editing.id } }, body }),
            );
        },
        editing === null ? `Region ${form.name} created.` : `Region ${form.name} saved.`,
      )
      .then((ok) => {
        if (!ok) return;
        reset();
        void regions.reload();
      });
  };

  const del = (region: Region) => {
    if (!window.confirm(`Delete region ${region.name}? Its carts move to the default region.`)) return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/regions/{id}', { params: { path: { id: region.id } } })),
        `Region ${region.name} deleted.`,
      )
      .then((ok) => {
        if (!ok) return;
        if (editing?.id === region.id) reset();
        void regions.reload();
      });
  };

  return (
    <Page title="Regions">
      <p className="hint">
        A region sells in one currency to its countries, with or without tax in its prices. The default region
        serves every country no other region lists.
      </p>
      <Alert message={regions.error ?? remove.error} />
      <Status message={remove.status} />
      {regions.data !== null && (
        <DataTable caption="Regions" columns={['Name', 'Currency', 'Countries', 'Prices', 'Actions']}>
          {regions.data.map((region) => (
            <tr key={region.id}>
              <th scope="row">
                {region.name}
                {region.is_default && (
                  <>
                    {' '}
                    <span className="badge badge-active">Default</span>
                  </>
                )}
              </th>
              <td>{region.currency_code.toUpperCase()}</td>
              <td>
                {region.countries.length > 0
                  ? region.countries.join(', ')
                  : region.is_default
                    ? 'Every country no other region lists'
                    : 'None yet'}
              </td>
              <td>{region.prices_include_tax ? 'Include tax' : 'Exclude tax'}</td>
              <td className="actions">
                <RowButton
                  label="Edit"
                  of={region.name}
                  onClick={() => {
                    setEditing(region);
                    setForm(formOf(region));
                  }}
                />
                {!region.is_default && (
                  <RowButton
                    label="Delete"
                    of={region.name}
                    danger
                    disabled={remove.busy}
                    onClick={() => del(region)}
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="region-form-heading">
        <h2 id="region-form-heading">{editing === null ? 'New region' : `Edit ${editing.name}`}</h2>
        <Alert message={save.error} />
        <TextField
          label="Name"
          required
          maxLength={100}
          value={form.name}
          error={save.fields.name}
          onChange={(event) => set({ name: event.target.value })}
        />
        <TextField
          label="Currency"
          required
          maxLength={3}
          autoCapitalize="characters"
          hint={
            editing?.is_default === true
              ? "The default region keeps the shop's currency."
              : 'ISO 4217 code such as EUR, USD, JPY'
          }
          readOnly={editing?.is_default === true}
          value={form.currency}
          error={save.fields.currency_code}
          onChange={(event) => set({ currency: event.target.value.toUpperCase() })}
        />
        <TextField
          label="Countries"
          hint="ISO codes such as DE, FR, AT, kept in this order; the first stands in for the address until one is known. A country is in one region at most."
          value={form.countries}
          error={errorOf(save.fields, 'countries')}
          onChange={(event) => set({ countries: event.target.value })}
        />
        <CheckboxField
          label="Prices include tax"
          hint="Tax is taken out of the prices (as in the EU), rather than added on top."
          checked={form.pricesIncludeTax}
          error={save.fields.prices_include_tax}
          onChange={(event) => set({ pricesIncludeTax: event.target.checked })}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            {editing === null ? 'Create region' : 'Save region'}
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
