import { useState, type FormEvent } from 'react';
import type { Schemas } from '@commerce/sdk';
import { client, readAll } from '../client';
import { useCurrency } from '../currency';
import { amountStep, formatDateTime, formatMoney } from '../format';
import { Alert, DataTable, Page, RowButton, Status, TextField, useAction, useLoad } from '../ui';

type GiftCard = Schemas['GiftCardResponseDto'];
type Created = Schemas['CreatedGiftCardResponseDto'];
type Form = { balance: string; currency: string; expiresAt: string };

/** Every gift card, newest first. */
function loadGiftCards(): Promise<GiftCard[]> {
  return readAll((page) =>
    client.page(client.api.GET('/gift-cards', { params: { query: { page, page_size: 100 } } })),
  );
}

/** The code in groups of four, as it is easiest to read out and type. */
function grouped(code: string): string {
  return code.replace(/(.{4})(?=.)/g, '$1-');
}

export function GiftCardsPage() {
  const shopCurrency = useCurrency();
  const cards = useLoad(loadGiftCards, []);
  const [form, setForm] = useState<Form>({ balance: '', currency: '', expiresAt: '' });
  const [created, setCreated] = useState<Created | null>(null);
  const save = useAction();
  const toggle = useAction();
  const currency = form.currency.trim() === '' ? (shopCurrency ?? '') : form.currency.trim();
  const set = (changes: Partial<Form>) => setForm((current) => ({ ...current, ...changes }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    const body = {
      initial_balance: Number(form.balance),
      currency_code: currency.toLowerCase(),
      expires_at: form.expiresAt === '' ? null : new Date(form.expiresAt).toISOString(),
    };
    void save
      .run(async () => {
        setCreated(await client.data(client.api.POST('/gift-cards', { body })));
      })
      .then((ok) => {
        if (!ok) return;
        setForm({ balance: '', currency: '', expiresAt: '' });
        void cards.reload();
      });
  };

  const setActive = (card: GiftCard, active: boolean) => {
    void toggle
      .run(
        () =>
          client.data(
            client.api.PUT('/gift-cards/{id}', {
              params: { path: { id: card.id } },
              body: { is_active: active },
            }),
          ),
        `Gift card …${card.code_last4} ${active ? 'activated' : 'deactivated'}.`,
      )
      .then((ok) => {
        if (ok) void cards.reload();
      });
  };

  return (
    <Page title="Gift cards">
      <p className="hint">
        A gift card pays carts in its currency up to its balance. Its code is shown once, when it is created:
        only its last four characters can be seen afterwards.
      </p>
      <Alert message={cards.error ?? toggle.error} />
      <Status message={toggle.status} />
      {cards.data !== null && (
        <DataTable
          caption="Gift cards"
          columns={['Code', 'Balance', 'Initial balance', 'Expires', 'Status', 'Actions']}
        >
          {cards.data.map((card) => (
            <tr key={card.id}>
              <th scope="row">…{card.code_last4}</th>
              <td className="number">{formatMoney(card.balance, card.currency_code)}</td>
              <td className="number">{formatMoney(card.initial_balance, card.currency_code)}</td>
              <td>{card.expires_at === null ? 'Never' : formatDateTime(card.expires_at)}</td>
              <td>
                <span className={card.is_active ? 'badge badge-active' : 'badge'}>
                  {card.is_active ? 'Active' : 'Deactivated'}
                </span>
              </td>
              <td className="actions">
                <RowButton
                  label={card.is_active ? 'Deactivate' : 'Activate'}
                  of={`gift card …${card.code_last4}`}
                  danger={card.is_active}
                  disabled={toggle.busy}
                  onClick={() => setActive(card, !card.is_active)}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <form className="stacked" onSubmit={submit} noValidate aria-labelledby="gift-card-form-heading">
        <h2 id="gift-card-form-heading">New gift card</h2>
        <Alert message={save.error} />
        <TextField
          label="Balance"
          required
          type="number"
          inputMode="decimal"
          min={amountStep(currency)}
          step={amountStep(currency)}
          value={form.balance}
          error={save.fields.initial_balance}
          onChange={(event) => set({ balance: event.target.value })}
        />
        <TextField
          label="Currency"
          maxLength={3}
          autoCapitalize="characters"
          hint={`ISO 4217 code; empty: the shop's currency (${(shopCurrency ?? '').toUpperCase()})`}
          value={form.currency}
          error={save.fields.currency_code}
          onChange={(event) => set({ currency: event.target.value.toUpperCase() })}
        />
        <TextField
          label="Expires"
          type="datetime-local"
          hint="Empty: never"
          value={form.expiresAt}
          error={save.fields.expires_at}
          onChange={(event) => set({ expiresAt: event.target.value })}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy}>
            Create gift card
          </button>
        </div>
      </form>
      {created !== null && (
        <div className="notice" role="region" aria-labelledby="gift-card-code-heading">
          <h2 id="gift-card-code-heading">Gift card code</h2>
          <p>
            The code of the new gift card of {formatMoney(created.balance, created.currency_code)} is shown
            this once. Give it to its owner; afterwards only its last four characters are shown:
          </p>
          <p>
            <code>{grouped(created.code)}</code>
          </p>
          <button type="button" onClick={() => setCreated(null)}>
            I have passed the code on
          </button>
        </div>
      )}
    </Page>
  );
}
