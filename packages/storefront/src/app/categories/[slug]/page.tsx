import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Pager } from '@/components/pager';
import { ProductGrid } from '@/components/product-grid';
import { serverClient } from '@/lib/api-server';
import { currentRegion } from '@/lib/region';
import { numberParam, type SearchParams } from '@/lib/search-params';

interface Props {
  params: Promise<{ slug: string }>;
  searchParams: Promise<SearchParams>;
}

async function findCategory(slug: string) {
  const client = await serverClient();
  const { data } = await client.page(client.api.GET('/categories', { params: { query: { slug } } }));
  return data[0] ?? null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const category = await findCategory((await params).slug);
  return { title: category?.name ?? 'Category not found' };
}

export default async function CategoryPage({ params, searchParams }: Props) {
  const { slug } = await params;
  const query = await searchParams;
  const category = await findCategory(slug);
  if (category === null) notFound();
  const client = await serverClient();
  const { region } = await currentRegion();
  const page = Math.max(1, Math.floor(numberParam(query.page) ?? 1));
  const [children, products] = await Promise.all([
    client.page(
      client.api.GET('/categories', { params: { query: { parent_id: category.id, page_size: 50 } } }),
    ),
    // The products of the category and of every category below it.
    client.page(
      client.api.GET('/products', {
        params: {
          query: {
            category_id: category.id,
            include_descendants: true,
            page,
            page_size: 24,
            region_id: region?.id,
          },
        },
      }),
    ),
  ]);
  return (
    <>
      <h1>{category.name}</h1>
      {category.description !== '' && <p>{category.description}</p>}
      {children.data.length > 0 && (
        <nav aria-label="Subcategories">
          <ul className="category-list">
            {children.data.map((child) => (
              <li key={child.id}>
                <Link href={`/categories/${child.slug}`}>{child.name}</Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <ProductGrid products={products.data} />
      <Pager path={`/categories/${slug}`} params={query} page={page} totalPages={products.meta.total_page} />
    </>
  );
}
