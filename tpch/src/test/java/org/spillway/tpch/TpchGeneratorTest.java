package org.spillway.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trino.tpch.Customer;
import io.trino.tpch.CustomerGenerator;
import io.trino.tpch.LineItem;
import io.trino.tpch.LineItemGenerator;
import io.trino.tpch.Nation;
import io.trino.tpch.NationGenerator;
import io.trino.tpch.Order;
import io.trino.tpch.OrderGenerator;
import io.trino.tpch.Part;
import io.trino.tpch.PartGenerator;
import io.trino.tpch.PartSupplier;
import io.trino.tpch.PartSupplierGenerator;
import io.trino.tpch.Region;
import io.trino.tpch.RegionGenerator;
import io.trino.tpch.Supplier;
import io.trino.tpch.SupplierGenerator;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnReader;
import org.spillway.storage.StorageAllocator;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;

class TpchGeneratorTest {
  private static final double SF = 0.01;

  @TempDir
  static Path dir;
  private static Catalog catalog;

  @BeforeAll
  static void generate() {
    TpchGenerator.generate(dir.resolve("sf001"), SF, 2, ProgressListener.NONE);
    catalog = Catalog.open(dir.resolve("sf001"));
  }

  @AfterAll
  static void close() {
    catalog.close();
    assertEquals(0, StorageAllocator.root().getAllocatedMemory());
  }

  @Test
  void rowCountsMatchTheSpecification() {
    Map<String, Long> expected = Map.of("lineitem", 60_175L, "orders", 15_000L, "customer", 1_500L, "part", 2_000L,
        "partsupp", 8_000L, "supplier", 100L, "nation", 25L, "region", 5L);
    assertEquals(expected.keySet().stream().sorted().toList(), catalog.tableNames());
    for (Map.Entry<String, Long> table : expected.entrySet()) {
      StoredTable stored = catalog.table(table.getKey()).orElseThrow();
      assertEquals(table.getValue(), stored.rowCount(), table.getKey());
      assertEquals(table.getValue(), rows(stored).size(), table.getKey());
      assertEquals(TpchSchema.tables(SF).get(table.getKey()), stored.schema());
    }
  }

  @Test
  void spotValuesMatchIoTrinoTpch() {
    List<List<Object>> lineitems = rows(catalog.table("lineitem").orElseThrow());
    for (int index : new int[] {0, 12_345, 60_174}) {
      LineItem l = nth(new LineItemGenerator(SF, 1, 1).iterator(), index);
      assertEquals(List.of((int) l.getOrderKey(), (int) l.getPartKey(), (int) l.getSupplierKey(), l.getLineNumber(),
          money(l.getQuantity()), money(l.getExtendedPrice()), money(l.getDiscount()), money(l.getTax()),
          l.getReturnFlag(), l.getStatus(), l.getShipDate(), l.getCommitDate(), l.getReceiptDate(),
          l.getShipInstructions(), l.getShipMode(), l.getComment()), lineitems.get(index), "lineitem " + index);
    }
    Order o = nth(new OrderGenerator(SF, 1, 1).iterator(), 7_777);
    assertEquals(List.of((int) o.getOrderKey(), (int) o.getCustomerKey(), String.valueOf(o.getOrderStatus()),
        money(o.getTotalPrice()), o.getOrderDate(), o.getOrderPriority(), o.getClerk(), o.getShipPriority(),
        o.getComment()), rows(catalog.table("orders").orElseThrow()).get(7_777));
    Customer c = nth(new CustomerGenerator(SF, 1, 1).iterator(), 1_499);
    assertEquals(List.of((int) c.getCustomerKey(), c.getName(), c.getAddress(), (int) c.getNationKey(), c.getPhone(),
        money(c.getAccountBalance()), c.getMarketSegment(), c.getComment()),
        rows(catalog.table("customer").orElseThrow()).get(1_499));
    Part p = nth(new PartGenerator(SF, 1, 1).iterator(), 999);
    assertEquals(List.of((int) p.getPartKey(), p.getName(), p.getManufacturer(), p.getBrand(), p.getType(), p.getSize(),
        p.getContainer(), money(p.getRetailPrice()), p.getComment()), rows(catalog.table("part").orElseThrow()).get(999));
    PartSupplier ps = nth(new PartSupplierGenerator(SF, 1, 1).iterator(), 4_001);
    assertEquals(List.of((int) ps.getPartKey(), (int) ps.getSupplierKey(), ps.getAvailableQuantity(),
        money(ps.getSupplyCost()), ps.getComment()), rows(catalog.table("partsupp").orElseThrow()).get(4_001));
    Supplier s = nth(new SupplierGenerator(SF, 1, 1).iterator(), 50);
    assertEquals(List.of((int) s.getSupplierKey(), s.getName(), s.getAddress(), (int) s.getNationKey(), s.getPhone(),
        money(s.getAccountBalance()), s.getComment()), rows(catalog.table("supplier").orElseThrow()).get(50));
    List<List<Object>> nations = rows(catalog.table("nation").orElseThrow());
    Iterator<Nation> nationRows = new NationGenerator().iterator();
    for (List<Object> row : nations) {
      Nation n = nationRows.next();
      assertEquals(List.of((int) n.getNationKey(), n.getName(), (int) n.getRegionKey(), n.getComment()), row);
    }
    Iterator<Region> regionRows = new RegionGenerator().iterator();
    for (List<Object> row : rows(catalog.table("region").orElseThrow())) {
      Region r = regionRows.next();
      assertEquals(List.of((int) r.getRegionKey(), r.getName(), r.getComment()), row);
    }
  }

  @Test
  void generationIsDeterministicAcrossThreadCounts() {
    Path again = dir.resolve("again");
    TpchGenerator.generate(again, SF, 1, ProgressListener.NONE);
    try (Catalog second = Catalog.open(again)) {
      for (String table : TpchSchema.TABLE_NAMES) {
        assertEquals(rows(catalog.table(table).orElseThrow()), rows(second.table(table).orElseThrow()), table);
        assertEquals(catalog.table(table).orElseThrow().statistics(), second.table(table).orElseThrow().statistics());
      }
    }
  }

  @Test
  void aSelectionWritesOnlyItsTablesAndColumnsWithTheSameValues() {
    Path subset = dir.resolve("subset");
    TpchGenerator.generate(subset, SF, 2, ProgressListener.NONE,
        TpchGenerator.parseSelection("lineitem:l_shipdate,l_quantity,l_returnflag region"));
    try (Catalog selected = Catalog.open(subset)) {
      assertEquals(List.of("lineitem", "region"), selected.tableNames());
      StoredTable lineitem = selected.table("lineitem").orElseThrow();
      assertEquals(List.of("l_quantity", "l_returnflag", "l_shipdate"), lineitem.schema().names());
      List<List<Object>> all = rows(catalog.table("lineitem").orElseThrow());
      List<List<Object>> some = rows(lineitem);
      assertEquals(all.size(), some.size());
      for (int index : new int[] {0, 31_337, all.size() - 1}) {
        assertEquals(List.of(all.get(index).get(4), all.get(index).get(8), all.get(index).get(10)), some.get(index));
      }
      assertEquals(rows(catalog.table("region").orElseThrow()), rows(selected.table("region").orElseThrow()));
    }
  }

  @Test
  void aSelectionNamingUnknownTablesOrColumnsFailsBeforeWriting() {
    StorageException table = assertThrows(StorageException.class, () -> TpchGenerator.generate(dir.resolve("bad1"),
        SF, 2, ProgressListener.NONE, TpchGenerator.parseSelection("lineitems")));
    assertTrue(table.getMessage().contains("no TPC-H table 'lineitems'"), table.getMessage());
    StorageException column = assertThrows(StorageException.class, () -> TpchGenerator.generate(dir.resolve("bad2"),
        SF, 2, ProgressListener.NONE, TpchGenerator.parseSelection("lineitem:l_shipdat")));
    assertTrue(column.getMessage().contains("no column 'l_shipdat'"), column.getMessage());
  }

  @Test
  void refusesADirectoryWithTpchTables() {
    StorageException e = assertThrows(StorageException.class,
        () -> TpchGenerator.generate(dir.resolve("sf001"), SF, 2, ProgressListener.NONE));
    assertTrue(e.getMessage().contains("already holds TPC-H tables customer, lineitem"), e.getMessage());
    assertThrows(StorageException.class, () -> TpchGenerator.generate(dir.resolve("x"), -1, 2, ProgressListener.NONE));
  }

  @Test
  void failureLeavesNoTableBehind() throws IOException {
    Path target = dir.resolve("failing");
    ProgressListener failOnLineitem = (table, done, total) -> {
      if (table.equals("lineitem") && done > 0) {
        throw new IllegalStateException("disk full (simulated)");
      }
    };
    StorageException e = assertThrows(StorageException.class,
        () -> TpchGenerator.generate(target, 0.001, 2, failOnLineitem));
    assertTrue(e.getMessage().contains("disk full (simulated)"), e.getMessage());
    try (Stream<Path> left = Files.list(target)) {
      assertEquals(List.of(), left.toList());
    }
  }

  private static <E> E nth(Iterator<E> rows, int index) {
    for (int i = 0; i < index; i++) {
      rows.next();
    }
    return rows.next();
  }

  /** The double accessors of io.trino.tpch, rounded to cents: an independent path from the exact ones. */
  private static BigDecimal money(double value) {
    return BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_UP);
  }

  private static BigDecimal money(long wholeUnits) {
    return BigDecimal.valueOf(wholeUnits).setScale(2);
  }

  static List<List<Object>> rows(StoredTable table) {
    List<List<Object>> rows = new ArrayList<>();
    for (int batch = 0; batch < table.batches().size(); batch++) {
      List<ColumnReader> readers = new ArrayList<>();
      for (int col = 0; col < table.schema().size(); col++) {
        readers.add(table.reader(batch, col));
      }
      for (int row = 0; row < readers.get(0).size(); row++) {
        List<Object> values = new ArrayList<>();
        for (ColumnReader reader : readers) {
          values.add(reader.get(row));
        }
        rows.add(values);
      }
    }
    return rows;
  }
}
