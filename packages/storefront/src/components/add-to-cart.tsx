'use client';

import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { problems } from '@/lib/errors';
import { money } from '@/lib/format';
import { useCart } from './cart';

interface VariantChoice {
  id: number;
  title: string;
  options: Record<string, string>;
  stock: number;
  price: { amount: number; currency_code: string } | null;
}

interface Props {
  productId: number;
  options: Array<{ name: string; values: string[] }>;
  variants: VariantChoice[];
  stock: number;
  /** Whether a product without variants has a price in the region (one without cannot be bought there). */
  priced: boolean;
  regionId?: number;
}

/** The variant picker (one select per option) and the quantity; adds the product or the chosen variant. */
export function AddToCart({ productId, options, variants, stock, priced, regionId }: Props) {
  const { add } = useCart();
  const id = useId();
  const [chosen, setChosen] = useState<Record<string, string>>(() => {
    const start = variants.find((variant) => variant.stock > 0) ?? variants[0];
    return start?.options ?? {};
  });
  const [quantity, setQuantity] = useState(1);
  const [status, setStatus] = useState<{ kind: 'added' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const hasVariants = variants.length > 0;
  const variant = hasVariants
    ? variants.find((candidate) => options.every(({ name }) => candidate.options[name] === chosen[name]))
    : undefined;
  const available = hasVariants ? (variant?.stock ?? 0) : stock;
  const inRegion = hasVariants ? variant !== undefined && variant.price !== null : priced;
  const sellable = available > 0 && inRegion;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setStatus(null);
    try {
      await add(
        variant === undefined ? { product_id: productId } : { variant_id: variant.id },
        quantity,
        regionId,
      );
      setStatus({ kind: 'added', text: `Added ${quantity} to the cart.` });
    } catch (error) {
      setStatus({ kind: 'error', text: problems(error).join(' ') });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(event) => void submit(event)} className="add-to-cart">
      {options.map((option) => (
        <div key={option.name} className="field">
          <label htmlFor={`${id}-${option.name}`}>{option.name}</label>
          <select
            id={`${id}-${option.name}`}
            value={chosen[option.name] ?? ''}
            onChange={(event) => setChosen({ ...chosen, [option.name]: event.target.value })}
          >
            {option.values.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
      ))}
      {hasVariants && (
        <p aria-live="polite">
          {variant === undefined
            ? 'This combination is not available.'
            : `${variant.title}: ${variant.price === null ? 'not sold in this region' : money(variant.price.amount, variant.price.currency_code)}${variant.stock === 0 ? ', out of stock' : ''}`}
        </p>
      )}
      <div className="field">
        <label htmlFor={`${id}-quantity`}>Quantity</label>
        <input
          id={`${id}-quantity`}
          type="number"
          min={1}
          max={Math.max(1, Math.min(1000, available))}
          value={quantity}
          onChange={(event) => setQuantity(Math.max(1, Math.floor(Number(event.target.value) || 1)))}
        />
      </div>
      <button type="submit" disabled={busy || !sellable}>
        {sellable ? 'Add to cart' : inRegion ? 'Out of stock' : 'Not sold in this region'}
      </button>
      <div role="status" className={status?.kind === 'error' ? 'error' : undefined}>
        {status?.text} {status?.kind === 'added' && <Link href="/cart">View cart</Link>}
      </div>
    </form>
  );
}
