import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { useCurrency } from '../currency';
import { countryList, formatMoney } from '../format';
import { PricesEditor } from '../prices';
import { otherPriceRows, pricesBody, type PriceRow } from '../price-rows';
import {
  ActiveBadge,
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

type ShippingOption = Schemas['ShippingOptionResponseDto'];
type Form = {
  name: string;
  price: string;
  prices: PriceRow[];
  taxClass: string;
  countries: string;
  active: boolean;
};
const EMPTY: Form = { name: '', price: '', prices: [], taxClass: 'standard', countries: '', active: true };

function formOf(option: ShippingOption): Form {
  return {
    name: option.name,
    price: String(option.price),
    prices: otherPriceRows(option.prices),
    taxClass: option.tax_class,
    countries: option.countries.join(', '),
    active: option.is_active,
  };
}

export function ShippingOptionsPage() {
  const currency = useCurrency();
  const options = useLoad(
    () =>
      readAll((page) =>
        client.page(client.api.GET('/shipping-options', { params: { query: { page, page_size: 100 } } })),
      ),
    [],
  );
  const [editing, setEditing] = useState<ShippingOption | null>(null);
  const [form, setForm] = useState<Form>(EMPTY);
  const save = useAction();
  const remove = useAction();
  const set = (changes: Partial<Form>) => setForm((current) => ({ ...current, ...changes }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name: form.name,
      // An empty price goes as null (NaN in JSON) for the API to refuse: 0 would quietly mean free shipping.
      price: form.price.trim() === '' ? Number.NaN : Number(form.price),
      prices: pricesBody(form.prices),
      tax_class: form.taxClass.trim(),
      countries: countryList(form.countries),
      is_active: form.active,
    };
    void save
      .run(
        async () => {
          if (editing === null) await client.data(client.api.POST('/shipping-options', { body }));
          else
            await client.data(
              client.api.PUT('/shipping-options/{id}', { params: { path: { id: editing.id } }, body }),
            );
        },
        editing === null ? `Shipping option ${form.name} created.` : `Shipping option ${form.name} saved.`,
      )
      .then((ok) => {
        if (!ok) return;
        setEditing(null);
        setForm(EMPTY);
        void options.reload();
      });
  };

  const del = (option: ShippingOption) => {
    if (!window.confirm(`Delete shipping option ${option.name}?`)) return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/shipping-options/{id}', { params: { path: { id: option.id } } })),
        `Shipping option ${option.name} deleted.`,
      )
      .then((ok) => {
        if (ok) void options.reload();
      });
  };

  return (
    <Page title="Shipping options">
      <Alert message={options.error ?? remove.error} />
      <Status message={remove.status} />
      {options.data !== null &&
        (options.data.length === 0 ? (
          <p>No shipping options yet: orders are placed without one.</p>
        ) : (
          <DataTable
            caption="Shipping options"
            columns={[
              'Name',
              ['Price', 'number'],
              'Other prices',
              'Tax class',
              'Ships to',
              'State',
              'Actions',
            ]}
          >
            {options.data.map((option) => (
              <tr key={option.id}>
                <th scope="row">{option.name}</th>
                <td className="number">{formatMoney(option.price, currency)}</td>
                <td>
                  {option.prices
                    .slice(1)
                    .map((price) => formatMoney(price.amount, price.currency_code))
                    .join(', ')}
                </td>
                <td>{option.tax_class}</td>
                <td>{option.countries.length === 0 ? 'Everywhere' : option.countries.join(', ')}</td>
                <td>
                  <ActiveBadge active={option.is_active} />
                </td>
                <td className="actions">
                  <RowButton
                    label="Edit"
                    of={option.name}
                    onClick={() => {
                      setEditing(option);
                      setForm(formOf(option));
                    }}
                  />
                  <RowButton
                    label="Delete"
                    of={option.name}
                    danger
                    disabled={remove.busy}
                    onClick={() => del(option)}
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        ))}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="shipping-form-heading">
        <h2 id="shipping-form-heading">
          {editing === null ? 'New shipping option' : `Edit ${editing.name}`}
        </h2>
        <Alert message={save.error} />
        <TextField
          label="Name"
          required
          maxLength={200}
          value={form.name}
          error={save.fields.name}
          onChange={(event) => set({ name: event.target.value })}
        />
        <PricesEditor
          label="Price"
          min="0"
          priceHint="0 for free shipping."
          price={form.price}
          onPrice={(price) => set({ price })}
          rows={form.prices}
          onRows={(prices) => set({ prices })}
          defaultCurrency={currency}
          fields={save.fields}
        />
        <TextField
          label="Tax class"
          hint="The tax rates of this class apply to the shipping (standard unless said)"
          required
          maxLength={32}
          value={form.taxClass}
          error={save.fields.tax_class}
          onChange={(event) => set({ taxClass: event.target.value })}
        />
        <TextField
          label="Countries"
          hint="ISO codes such as DE, AT, FR; empty: ships everywhere"
          value={form.countries}
          error={errorOf(save.fields, 'countries')}
          onChange={(event) => set({ countries: event.target.value })}
        />
        <CheckboxField
          label="Active"
          hint="Offered to customers at checkout."
          checked={form.active}
          onChange={(event) => set({ active: event.target.checked })}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            {editing === null ? 'Create shipping option' : 'Save shipping option'}
          </button>
          {editing !== null && (
            <button
              type="button"
              onClick={() => {
                setEditing(null);
                setForm(EMPTY);
              }}
            >
              Cancel editing
            </button>
          )}
        </div>
        <Status message={save.status} />
      </form>
    </Page>
  );
}
