'use client';

import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { client } from '@/lib/api-browser';
import { REGION_COOKIE } from '@/lib/region-cookie';
import { useCart } from './cart';

export interface RegionChoice {
  id: number;
  name: string;
  currency_code: string;
}

/** Chooses the region (and with it the currency) of prices and of the cart; kept in the storefront's cookie. */
export function RegionSelect({ regions, current }: { regions: RegionChoice[]; current: number | null }) {
  const router = useRouter();
  const { cart, replace } = useCart();
  const id = useId();
  const [error, setError] = useState<string | null>(null);

  async function choose(regionId: number) {
    setError(null);
    document.cookie = `${REGION_COOKIE}=${regionId}; path=/; max-age=31536000; samesite=lax`;
    try {
      if (cart !== null && cart.region_id !== regionId) {
        replace(
          await client.data(
            client.api.PUT('/carts/{id}', {
              params: { path: { id: cart.id } },
              body: { region_id: regionId },
            }),
          ),
        );
      }
    } catch {
      setError('The cart could not be moved to that region.');
    }
    router.refresh();
  }

  return (
    <div className="region-select">
      <label htmlFor={id}>Region</label>
      <select id={id} value={current ?? ''} onChange={(event) => void choose(Number(event.target.value))}>
        {regions.map((region) => (
          <option key={region.id} value={region.id}>
            {region.name} ({region.currency_code.toUpperCase()})
          </option>
        ))}
      </select>
      {error !== null && <p role="alert">{error}</p>}
    </div>
  );
}
