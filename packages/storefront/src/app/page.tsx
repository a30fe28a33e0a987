import Link from 'next/link';
import { ProductGrid } from '@/components/product-grid';
import { serverClient } from '@/lib/api-server';
import { currentRegion } from '@/lib/region';

export default async function Home() {
  const client = await serverClient();
  const { region } = await currentRegion();
  const [categories, products] = await Promise.all([
    client.page(client.api.GET('/categories', { params: { query: { parent_id: 0, page_size: 50 } } })),
    client.page(
      client.api.GET('/products', {
        params: { query: { page_size: 12, sort: '-created_at', region_id: region?.id } },
      }),
    ),
  ]);
  return (
    <>
      <h1>Welcome</h1>
      <section aria-labelledby="categories">
        <h2 id="categories">Categories</h2>
        <ul className="category-list">
          {categories.data.map((category) => (
            <li key={category.id}>
              <Link href={`/categories/${category.slug}`}>{category.name}</Link>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="new">
        <h2 id="new">New in</h2>
        <ProductGrid products={products.data} />
      </section>
    </>
  );
}
