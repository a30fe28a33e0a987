import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll, succeed } from '../client';
import { formatDateTime } from '../format';
import {
  Alert,
  CheckboxField,
  DataTable,
  Page,
  RowButton,
  SelectField,
  Status,
  TextField,
  useAction,
  useLoad,
} from '../ui';

type Promotion = Schemas['PromotionResponseDto'];
type PromotionType = Promotion['type'];
type Form = {
  code: string;
  description: string;
  type: PromotionType;
  value: string;
  currencyCode: string;
  target: Promotion['target'];
  minSubtotal: string;
  productIds: string;
  categoryIds: string;
  customerGroupIds: string;
  firstOrderOnly: boolean;
  buyQuantity: string;
  getQuantity: string;
  getPercentage: string;
  startsAt: string;
  endsAt: string;
  usageLimit: string;
  usageLimitPerCustomer: string;
  combinable: boolean;
  isActive: boolean;
};
const EMPTY: Form = {
  code: '',
  description: '',
  type: 'percentage',
  value: '',
  currencyCode: '',
  target: 'order',
  minSubtotal: '',
  productIds: '',
  categoryIds: '',
  customerGroupIds: '',
  firstOrderOnly: false,
  buyQuantity: '',
  getQuantity: '',
  getPercentage: '100',
  startsAt: '',
  endsAt: '',
  usageLimit: '',
  usageLimitPerCustomer: '',
  combinable: true,
  isActive: true,
};
const TYPES: readonly { value: PromotionType; label: string }[] = [
  { value: 'percentage', label: 'Percentage off' },
  { value: 'fixed', label: 'Fixed amount off' },
  { value: 'free_shipping', label: 'Free shipping' },
  { value: 'buy_x_get_y', label: 'Buy X get Y' },
];

const ids = (list: number[] | null) => (list ?? []).join(', ');
/** A local date-time input's value of an ISO instant ('' for none). */
const localInput = (iso: string | null) => {
  if (iso === null) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function formOf(promotion: Promotion): Form {
  return {
    code: promotion.code ?? '',
    description: promotion.description,
    type: promotion.type,
    value: promotion.value === null ? '' : String(promotion.value),
    currencyCode: promotion.currency_code ?? '',
    target: promotion.target,
    minSubtotal: promotion.conditions.min_subtotal === null ? '' : String(promotion.conditions.min_subtotal),
    productIds: ids(promotion.conditions.product_ids),
    categoryIds: ids(promotion.conditions.category_ids),
    customerGroupIds: ids(promotion.conditions.customer_group_ids),
    firstOrderOnly: promotion.conditions.first_order_only,
    buyQuantity: String(promotion.buy_x_get_y?.buy_quantity ?? ''),
    getQuantity: String(promotion.buy_x_get_y?.get_quantity ?? ''),
    getPercentage: String(promotion.buy_x_get_y?.get_percentage ?? 100),
    startsAt: localInput(promotion.starts_at),
    endsAt: localInput(promotion.ends_at),
    usageLimit: promotion.usage_limit === null ? '' : String(promotion.usage_limit),
    usageLimitPerCustomer:
      promotion.usage_limit_per_customer === null ? '' : String(promotion.usage_limit_per_customer),
    combinable: promotion.combinable,
    isActive: promotion.is_active,
  };
}

/** A number field's value: null when empty (NaN when not a number, for the API to refuse). */
const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));
/** A list of ids typed as `3, 7`: null when empty. */
const idList = (text: string) =>
  text.trim() === ''
    ? null
    : text
        .split(/[\s,]+/)
        .filter((part) => part !== '')
        .map(Number);
const instant = (local: string) => (local === '' ? null : new Date(local).toISOString());

/** What a promotion gives, in a few words. */
function summaryOf(promotion: Promotion): string {
  switch (promotion.type) {
    case 'percentage':
      return `${promotion.value} % off ${promotion.target === 'items' ? 'each line' : 'the order'}`;
    case 'fixed':
      return `${promotion.value} ${promotion.currency_code?.toUpperCase()} off ${promotion.target === 'items' ? 'each unit' : 'the order'}`;
    case 'free_shipping':
      return 'Free shipping';
    default: {
      const offer = promotion.buy_x_get_y!;
      return `Buy ${offer.buy_quantity} get ${offer.get_quantity} (${offer.get_percentage} % off)`;
    }
  }
}

export function PromotionsPage() {
  const promotions = useLoad(
    () =>
      readAll((page) =>
        client.page(client.api.GET('/promotions', { params: { query: { page, page_size: 100 } } })),
      ),
    [],
  );
  const [editing, setEditing] = useState<Promotion | null>(null);
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
    const withValue = form.type === 'percentage' || form.type === 'fixed';
    const body = {
      code: form.code.trim() === '' ? null : form.code.trim(),
      description: form.description,
      type: form.type,
      value: withValue ? (numberOrNull(form.value) ?? Number.NaN) : null,
      currency_code: form.type === 'fixed' ? form.currencyCode.trim().toLowerCase() || null : null,
      target: form.target,
      conditions: {
        min_subtotal: numberOrNull(form.minSubtotal),
        product_ids: idList(form.productIds),
        category_ids: idList(form.categoryIds),
        customer_group_ids: idList(form.customerGroupIds),
        first_order_only: form.firstOrderOnly,
      },
      buy_x_get_y:
        form.type === 'buy_x_get_y'
          ? {
              buy_quantity: numberOrNull(form.buyQuantity) ?? Number.NaN,
              get_quantity: numberOrNull(form.getQuantity) ?? Number.NaN,
              get_percentage: numberOrNull(form.getPercentage) ?? 100,
            }
          : null,
      starts_at: instant(form.startsAt),
      ends_at: instant(form.endsAt),
      usage_limit: numberOrNull(form.usageLimit),
      usage_limit_per_customer: numberOrNull(form.usageLimitPerCustomer),
      combinable: form.combinable,
      is_active: form.isActive,
    };
    const name = body.code ?? (body.description || 'Automatic promotion');
    void save
      .run(
        async () => {
          if (editing === null) await client.data(client.api.POST('/promotions', { body }));
          else
            await client.data(
              client.api.PUT('/promotions/{id}', { params: { path: { id: editing.id } }, body }),
            );
        },
        editing === null ? `Promotion ${name} created.` : `Promotion ${name} saved.`,
      )
      .then((ok) => {
        if (!ok) return;
        reset();
        void promotions.reload();
      });
  };

  const del = (promotion: Promotion) => {
    const name = promotion.code ?? promotion.description;
    if (!window.confirm(`Delete promotion ${name}? Orders keep the discounts they got.`)) return;
    void remove
      .run(
        () => succeed(client.api.DELETE('/promotions/{id}', { params: { path: { id: promotion.id } } })),
        `Promotion ${name} deleted.`,
      )
      .then((ok) => {
        if (!ok) return;
        if (editing?.id === promotion.id) reset();
        void promotions.reload();
      });
  };

  return (
    <Page title="Promotions">
      <p className="hint">
        A code applies when a shopper enters it; without a code a promotion applies by itself. Items first,
        then the order, then shipping; a non-combinable promotion applies alone when it gives the shopper more
        than the combinable ones together.
      </p>
      <Alert message={promotions.error ?? remove.error} />
      <Status message={remove.status} />
      {promotions.data !== null &&
        (promotions.data.length === 0 ? (
          <p>No promotions yet.</p>
        ) : (
          <DataTable
            caption="Promotions"
            columns={['Code', 'Description', 'Offer', 'Valid', ['Used', 'number'], 'Active', 'Actions']}
          >
            {promotions.data.map((promotion) => {
              const name = promotion.code ?? promotion.description;
              return (
                <tr key={promotion.id}>
                  <th scope="row">{promotion.code ?? <em>automatic</em>}</th>
                  <td>{promotion.description}</td>
                  <td>{summaryOf(promotion)}</td>
                  <td>
                    {promotion.starts_at === null && promotion.ends_at === null
                      ? 'Always'
                      : `${formatDateTime(promotion.starts_at) || '…'} – ${formatDateTime(promotion.ends_at) || '…'}`}
                  </td>
                  <td className="number">
                    {promotion.used_count}
                    {promotion.usage_limit === null ? '' : ` / ${promotion.usage_limit}`}
                  </td>
                  <td>{promotion.is_active ? 'Yes' : 'No'}</td>
                  <td className="actions">
                    <RowButton
                      label="Edit"
                      of={name}
                      onClick={() => {
                        setEditing(promotion);
                        setForm(formOf(promotion));
                      }}
                    />
                    <RowButton
                      label="Delete"
                      of={name}
                      danger
                      disabled={remove.busy}
                      onClick={() => del(promotion)}
                    />
                  </td>
                </tr>
              );
            })}
          </DataTable>
        ))}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="promotion-form-heading">
        <h2 id="promotion-form-heading">
          {editing === null ? 'New promotion' : `Edit ${editing.code ?? editing.description}`}
        </h2>
        <Alert message={save.error} />
        <div className="form-row">
          <TextField
            label="Code"
            hint="Letters, digits, - and _; empty: an automatic promotion"
            maxLength={64}
            value={form.code}
            error={save.fields.code}
            onChange={(event) => set({ code: event.target.value })}
          />
          <TextField
            label="Description"
            hint="What shoppers see on the cart and the order"
            maxLength={255}
            value={form.description}
            error={save.fields.description}
            onChange={(event) => set({ description: event.target.value })}
          />
        </div>
        <div className="form-row">
          <SelectField
            label="Type"
            options={TYPES}
            value={form.type}
            error={save.fields.type}
            onChange={(event) => set({ type: event.target.value as PromotionType })}
          />
          {(form.type === 'percentage' || form.type === 'fixed') && (
            <>
              <TextField
                label={form.type === 'percentage' ? 'Percent off' : 'Amount off'}
                type="number"
                inputMode="decimal"
                min="0"
                step="any"
                required
                value={form.value}
                error={save.fields.value}
                onChange={(event) => set({ value: event.target.value })}
              />
              <SelectField
                label="Off"
                options={[
                  { value: 'order', label: 'the order (spread over its lines)' },
                  { value: 'items', label: form.type === 'fixed' ? 'each unit' : 'each line' },
                ]}
                value={form.target}
                error={save.fields.target}
                onChange={(event) => set({ target: event.target.value as Form['target'] })}
              />
            </>
          )}
          {form.type === 'fixed' && (
            <TextField
              label="Currency"
              hint="e.g. eur: carts in another currency do not get it"
              required
              maxLength={3}
              value={form.currencyCode}
              error={save.fields.currency_code}
              onChange={(event) => set({ currencyCode: event.target.value.toLowerCase() })}
            />
          )}
        </div>
        {form.type === 'buy_x_get_y' && (
          <div className="form-row">
            <TextField
              label="Buy"
              type="number"
              min="1"
              required
              value={form.buyQuantity}
              error={save.fields['buy_x_get_y.buy_quantity'] ?? save.fields.buy_x_get_y}
              onChange={(event) => set({ buyQuantity: event.target.value })}
            />
            <TextField
              label="Get"
              type="number"
              min="1"
              required
              value={form.getQuantity}
              error={save.fields['buy_x_get_y.get_quantity']}
              onChange={(event) => set({ getQuantity: event.target.value })}
            />
            <TextField
              label="Percent off what is got"
              type="number"
              min="0"
              max="100"
              value={form.getPercentage}
              error={save.fields['buy_x_get_y.get_percentage']}
              onChange={(event) => set({ getPercentage: event.target.value })}
            />
          </div>
        )}
        <div className="form-row">
          <TextField
            label="Minimum subtotal"
            hint="In the cart's currency; empty: none"
            type="number"
            min="0"
            step="any"
            value={form.minSubtotal}
            error={save.fields['conditions.min_subtotal']}
            onChange={(event) => set({ minSubtotal: event.target.value })}
          />
          <TextField
            label="Product ids"
            hint="e.g. 3, 7; empty: every product"
            value={form.productIds}
            error={save.fields['conditions.product_ids']}
            onChange={(event) => set({ productIds: event.target.value })}
          />
          <TextField
            label="Category ids"
            hint="Their subcategories included"
            value={form.categoryIds}
            error={save.fields['conditions.category_ids']}
            onChange={(event) => set({ categoryIds: event.target.value })}
          />
          <TextField
            label="Customer group ids"
            hint="Empty: every shopper"
            value={form.customerGroupIds}
            error={save.fields['conditions.customer_group_ids']}
            onChange={(event) => set({ customerGroupIds: event.target.value })}
          />
        </div>
        <div className="form-row">
          <TextField
            label="Starts"
            type="datetime-local"
            value={form.startsAt}
            error={save.fields.starts_at}
            onChange={(event) => set({ startsAt: event.target.value })}
          />
          <TextField
            label="Ends"
            type="datetime-local"
            value={form.endsAt}
            error={save.fields.ends_at}
            onChange={(event) => set({ endsAt: event.target.value })}
          />
          <TextField
            label="Uses in all"
            type="number"
            min="1"
            hint="Empty: no limit"
            value={form.usageLimit}
            error={save.fields.usage_limit}
            onChange={(event) => set({ usageLimit: event.target.value })}
          />
          <TextField
            label="Uses per customer"
            type="number"
            min="1"
            hint="By account, a guest by e-mail"
            value={form.usageLimitPerCustomer}
            error={save.fields.usage_limit_per_customer}
            onChange={(event) => set({ usageLimitPerCustomer: event.target.value })}
          />
        </div>
        <div className="form-row">
          <CheckboxField
            label="First order only"
            checked={form.firstOrderOnly}
            error={save.fields['conditions.first_order_only']}
            onChange={(event) => set({ firstOrderOnly: event.target.checked })}
          />
          <CheckboxField
            label="Combinable with other promotions"
            checked={form.combinable}
            error={save.fields.combinable}
            onChange={(event) => set({ combinable: event.target.checked })}
          />
          <CheckboxField
            label="Active"
            checked={form.isActive}
            error={save.fields.is_active}
            onChange={(event) => set({ isActive: event.target.checked })}
          />
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            {editing === null ? 'Create promotion' : 'Save promotion'}
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
