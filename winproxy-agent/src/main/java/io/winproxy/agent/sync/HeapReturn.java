package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.ApplyResult;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the heap the agent no longer uses back to the node. The shipped collector (serial, {@code jvm.options})
 * returns committed memory only after a full collection, and a full collection comes only when the old generation is
 * at its cap: after a burst (the first sync's lists and plan, a restart's journal, a mass change) or after hours of
 * resyncs promoting a little garbage each, the process would hold its whole {@code -Xmx} for good. G1 has a periodic
 * collection for this ({@code G1PeriodicGCInterval}); the serial collector has none, so the agent asks for one itself
 * ({@link System#gc()}, a pause of 0.1 to 0.3 s at 10,000 Services), on the sync thread between two syncs:
 * <ul>
 *   <li>after the process's first whole sync (every step ran, failed ones included);</li>
 *   <li>after a sync that made at least {@link #BURST_WRITES} HNS writes, at most once per {@link #BURST_GAP};</li>
 *   <li>when the old generation holds more than {@link #GROWTH} times what it held after the last full collection
 *       (plus {@link #SLACK_BYTES}), at most once per {@link #GROWTH_GAP}.</li>
 * </ul>
 * For its own collections it lowers {@code -XX:MaxHeapFreeRatio} to {@code -XX:MinHeapFreeRatio} (both are
 * manageable options), so that the old generation is cut to what it holds plus that margin, and puts it back after:
 * the collector's own full collections, while the heap grows, keep the wider margin and do not give back what the next
 * step takes again. With {@code -XX:-ShrinkHeapInSteps} ({@code jvm.options}) the cut is done by that one collection;
 * by default the serial collector cuts nothing at the first collection after a growth and a tenth at the second.
 * {@code -XX:+DisableExplicitGC} turns all this off. Not thread-safe: the sync thread only.
 */
public final class HeapReturn {
    private static final Logger logger = LoggerFactory.getLogger(HeapReturn.class);
    static final int BURST_WRITES = 1_000;
    static final Duration BURST_GAP = Duration.ofMinutes(1);
    static final double GROWTH = 1.25;
    static final long SLACK_BYTES = 8L << 20;
    static final Duration GROWTH_GAP = Duration.ofMinutes(5);

    /** The old generation's occupancy: now, and after the last collection of it (0 before any). */
    interface OldGeneration {
        long used();

        long usedAfterLastCollection();
    }

    private final OldGeneration old;
    private final Runnable collect;
    private final LongSupplier nanoTime;
    private boolean firstWholeSeen;
    private long lastCollection = Long.MIN_VALUE;

    HeapReturn(OldGeneration old, Runnable collect, LongSupplier nanoTime) {
        this.old = old;
        this.collect = collect;
        this.nanoTime = nanoTime;
    }

    /** This JVM's old generation (or nothing, when no pool names one: then only the first two triggers apply). */
    public static HeapReturn forThisJvm() {
        Optional<MemoryPoolMXBean> pool = oldGenerationPool();
        OldGeneration old = new OldGeneration() {
            @Override
            public long used() {
                return pool.map(p -> p.getUsage().getUsed()).orElse(0L);
            }

            @Override
            public long usedAfterLastCollection() {
                return pool.map(MemoryPoolMXBean::getCollectionUsage).map(MemoryUsage::getUsed).orElse(0L);
            }
        };
        return new HeapReturn(old, HeapReturn::collectTightly, System::nanoTime);
    }

    /**
     * A full collection that gives back all but {@code MinHeapFreeRatio} percent of free old generation: with
     * {@code MaxHeapFreeRatio} lowered to {@code MinHeapFreeRatio} for its length. A plain {@link System#gc()} where
     * the options cannot be changed (a runtime without {@code jdk.management}).
     */
    static void collectTightly() {
        collectTightly(System::gc);
    }

    /** As {@link #collectTightly()}, with {@code collection} in place of {@link System#gc()}. */
    static void collectTightly(Runnable collection) {
        com.sun.management.HotSpotDiagnosticMXBean vm;
        String max;
        String min;
        try {
            vm = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            max = vm.getVMOption("MaxHeapFreeRatio").getValue();
            min = vm.getVMOption("MinHeapFreeRatio").getValue();
        } catch (RuntimeException | LinkageError e) {
            collection.run();
            return;
        }
        boolean lowered = false;
        try {
            if (Integer.parseInt(min) < Integer.parseInt(max)) {
                vm.setVMOption("MaxHeapFreeRatio", min);
                lowered = true;
            }
        } catch (RuntimeException e) {
            // not manageable here, or refused: the collection gives back what the option allows
        }
        try {
            collection.run();
        } finally {
            if (lowered) {
                vm.setVMOption("MaxHeapFreeRatio", max);
            }
        }
    }

    /** The heap pool of the old generation: "Tenured Gen" (serial), "G1 Old Gen", "PS Old Gen". */
    static Optional<MemoryPoolMXBean> oldGenerationPool() {
        return ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported())
                .filter(p -> p.getName().contains("Old") || p.getName().contains("Tenured")).findFirst();
    }

    /** Called after every sync; collects when one of the triggers holds. */
    public void afterSync(ApplyResult result) {
        long now = nanoTime.getAsLong();
        String why = null;
        if (!firstWholeSeen && !result.partial()) {
            firstWholeSeen = true;
            why = "first sync";
        } else if (result.writes() >= BURST_WRITES && since(now).compareTo(BURST_GAP) >= 0) {
            why = "burst of " + result.writes() + " HNS writes";
        } else if (since(now).compareTo(GROWTH_GAP) >= 0) {
            long after = old.usedAfterLastCollection();
            long used = old.used();
            if (after > 0 && used > after * GROWTH + SLACK_BYTES) {
                why = "old generation grew from " + (after >> 20) + " to " + (used >> 20) + " MiB";
            }
        }
        if (why == null) {
            return;
        }
        lastCollection = now;
        Runtime runtime = Runtime.getRuntime();
        long committed = runtime.totalMemory();
        collect.run();
        logger.atDebug().setMessage("Returned unused heap to the node").addKeyValue("why", why)
                .addKeyValue("committedMiB", committed >> 20).addKeyValue("nowMiB", runtime.totalMemory() >> 20)
                .addKeyValue("pauseMs", (nanoTime.getAsLong() - now) / 1_000_000).log();
    }

    private Duration since(long now) {
        return lastCollection == Long.MIN_VALUE ? Duration.ofDays(1) : Duration.ofNanos(now - lastCollection);
    }
}
