import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { formatRate } from '../format';
import { listQuery } from '../routes';
import { navigate, useLocation } from '../router';
import { Alert, DataTable, Filters, Page, RowButton, Status, TextField, useAction, useLoad } from '../ui';

type TaxRate = Schemas['TaxRateResponseDto'];
type Form = {
  country: string;
  subdivision: string;
  taxClass: string;
  rate: string;
  name: string;
  code: string;
};
const EMPTY: Form = { country: '', subdivision: '', taxClass: 'standard', rate: '', name: '', code: '' };

function formOf(rate: TaxRate): Form {
  return {
    country: rate.country,
    subdivision: rate.subdivision ?? '',
    taxClass: rate.tax_class,
    rate: String(rate.rate),
    name: rate.name,
    code: rate.code,
  };
}

/** Where a rate applies: `US-CA`, or the country for a rate of the whole country. */
function placeOf(rate: TaxRate): string {
  return rate.subdivision === null ? rate.country : `${rate.country}-${rate.subdivision}`;
}

export function TaxRatesPage() {
  const location = useLocation();
  const country = (location.search.get('country') ?? '').toUpperCase();
  const valid = /^[A-Z]{2}$/.test(country);
  const [filter, setFilter] = useState(country);
  const rates = useLoad(
    () =>
      readAll((page) =>
        client.page(
          client.api.GET('/tax-rates', {
            params: { query: { page, page_size: 100, ...(valid && { country }) } },
          }),
        ),
      ),
    [valid ? country : ''],
  );
  const [editing, setEditing] = useState<TaxRate | null>(null);
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
      country: form.country.trim().toUpperCase(),
      subdivision: form.subdivision.trim() === '' ? null : form.subdivision.trim().toUpperCase(),
      tax_class: form.taxClass.trim(),
      // An empty rate goes as null (NaN in JSON) for the API to refuse: 0 would quietly mean no tax.
      rate: form.rate.trim() === '' ? Number.NaN : Number(form.rate),
      name: form.name,
      code: form.code.trim(),
    };
    void save
      .run(
        async () => {
          if (editing === null) await client.data(client.api.POST('/tax-rates', { body }));
          else
            await client.data(
              client.api.PUT('/tax-rates/{id}', { params: { path: { id: editing.id } }, body }),
            );
        },
        editing === null ? `Tax rate ${body.name} created.` : `Tax rate ${body.name} saved.`,
      )
      .then((ok) => {
        if (!ok) return;
        reset();
        void rates.reload();
      });
  };

  const del = (rate: TaxRate) => {
    if (!window.confirm(`Delete tax rate ${rate.name} (${placeOf(rate)}, ${rate.tax_class})?`)) return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/tax-rates/{id}', { params: { path: { id: rate.id } } })),
        `Tax rate ${rate.name} deleted.`,
      )
      .then((ok) => {
        if (!ok) return;
        if (editing?.id === rate.id) reset();
        void rates.reload();
      });
  };

  return (
    <Page title="Tax rates">
      <p className="hint">
        A line is taxed by the rate of its tax class at the shipping address: the subdivision's, else the
        country's; a class without a rate there falls back to the standard rate.
      </p>
      <Filters label="Tax rate filters">
        <TextField
          label="Filter by country"
          hint="ISO code such as DE; empty: every country"
          maxLength={2}
          autoCapitalize="characters"
          value={filter}
          onChange={(event) => {
            const value = event.target.value.toUpperCase();
            setFilter(value);
            if (value === '' || /^[A-Z]{2}$/.test(value))
              navigate(`/tax-rates${listQuery({ country: value })}`, { replace: true });
          }}
        />
      </Filters>
      <Alert message={rates.error ?? remove.error} />
      <Status message={remove.status} />
      {rates.data !== null &&
        (rates.data.length === 0 ? (
          <p>{valid ? `No tax rates for ${country}.` : 'No tax rates yet: nothing is taxed.'}</p>
        ) : (
          <DataTable
            caption={valid ? `Tax rates of ${country}` : 'Tax rates'}
            columns={['Name', 'Where', 'Class', ['Rate', 'number'], 'Code', 'Actions']}
          >
            {rates.data.map((rate) => (
              <tr key={rate.id}>
                <th scope="row">{rate.name}</th>
                <td>{placeOf(rate)}</td>
                <td>{rate.tax_class}</td>
                <td className="number">{formatRate(rate.rate)}</td>
                <td>{rate.code}</td>
                <td className="actions">
                  <RowButton
                    label="Edit"
                    of={`${rate.name} (${placeOf(rate)}, ${rate.tax_class})`}
                    onClick={() => {
                      setEditing(rate);
                      setForm(formOf(rate));
                    }}
                  />
                  <RowButton
                    label="Delete"
                    of={`${rate.name} (${placeOf(rate)}, ${rate.tax_class})`}
                    danger
                    disabled={remove.busy}
                    onClick={() => del(rate)}
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        ))}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="tax-rate-form-heading">
        <h2 id="tax-rate-form-heading">{editing === null ? 'New tax rate' : `Edit ${editing.name}`}</h2>
        <Alert message={save.error} />
        <div className="form-row">
          <TextField
            label="Country"
            hint="ISO code such as DE"
            required
            maxLength={2}
            autoCapitalize="characters"
            value={form.country}
            error={save.fields.country}
            onChange={(event) => set({ country: event.target.value.toUpperCase() })}
          />
          <TextField
            label="Subdivision"
            hint="Optional: CA of US-CA; empty for the whole country"
            maxLength={3}
            autoCapitalize="characters"
            value={form.subdivision}
            error={save.fields.subdivision}
            onChange={(event) => set({ subdivision: event.target.value.toUpperCase() })}
          />
        </div>
        <div className="form-row">
          <TextField
            label="Tax class"
            hint="standard, reduced, …: products and shipping options name theirs"
            required
            maxLength={32}
            value={form.taxClass}
            error={save.fields.tax_class}
            onChange={(event) => set({ taxClass: event.target.value })}
          />
          <TextField
            label="Rate (%)"
            type="number"
            inputMode="decimal"
            min="0"
            max="100"
            step="0.0001"
            required
            value={form.rate}
            error={save.fields.rate}
            onChange={(event) => set({ rate: event.target.value })}
          />
        </div>
        <div className="form-row">
          <TextField
            label="Name"
            hint="As orders show it, e.g. MwSt. 19 %"
            required
            maxLength={100}
            value={form.name}
            error={save.fields.name}
            onChange={(event) => set({ name: event.target.value })}
          />
          <TextField
            label="Code"
            hint="e.g. DE-VAT"
            required
            maxLength={32}
            value={form.code}
            error={save.fields.code}
            onChange={(event) => set({ code: event.target.value })}
          />
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            {editing === null ? 'Create tax rate' : 'Save tax rate'}
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
