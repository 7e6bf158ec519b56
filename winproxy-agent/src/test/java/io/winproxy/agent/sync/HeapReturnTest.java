package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.ApplyResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the agent asks the JVM for a full collection: its first whole sync, a burst of writes, a grown old generation. */
class HeapReturnTest {
    private static final long MIB = 1L << 20;

    private long now;
    private long used;
    private long usedAfterLast;
    private int collections;

    private final HeapReturn heap = new HeapReturn(new HeapReturn.OldGeneration() {
        @Override
        public long used() {
            return used;
        }

        @Override
        public long usedAfterLastCollection() {
            return usedAfterLast;
        }
    }, () -> {
        collections++;
        usedAfterLast = used;
    }, () -> now);

    private static ApplyResult writes(int writes) {
        return new ApplyResult(writes, 0, 0, 0, writes, List.of(), List.of());
    }

    private static ApplyResult partial(int writes) {
        return new ApplyResult(writes, 0, 0, 0, writes, List.of(), List.of(), 500, false);
    }

    private void after(Duration d) {
        now += d.toNanos();
    }

    /** Lets {@code d} pass, reports a sync of {@code writes} HNS writes, and answers how many collections there were. */
    private int syncAfter(Duration d, int writes) {
        after(d);
        heap.afterSync(writes(writes));
        return collections;
    }

    @Test
    void theFirstWholeSyncCollectsOnceAPartialOneDoesNot() {
        heap.afterSync(partial(400));
        assertThat(collections).isZero();

        heap.afterSync(writes(0));
        assertThat(collections).isOne();

        after(Duration.ofMinutes(30));
        heap.afterSync(writes(0));
        assertThat(collections).as("nothing grew").isOne();
    }

    @Test
    void aBurstOfWritesCollectsAtMostOncePerMinute() {
        heap.afterSync(writes(0));
        after(Duration.ofMinutes(2));

        heap.afterSync(writes(HeapReturn.BURST_WRITES - 1));
        assertThat(collections).isOne();
        heap.afterSync(writes(HeapReturn.BURST_WRITES));
        assertThat(collections).isEqualTo(2);

        assertThat(syncAfter(Duration.ofSeconds(30), 50_000)).as("within a minute of the last").isEqualTo(2);
        assertThat(syncAfter(Duration.ofSeconds(31), 50_000)).isEqualTo(3);
    }

    @Test
    void anOldGenerationGrownAQuarterAndEightMibSinceTheLastCollectionIsCollectedEveryFiveMinutesAtMost() {
        used = 100 * MIB;
        heap.afterSync(writes(0)); // the first sync: 100 MiB stay after it
        assertThat(collections).isOne();

        used = 133 * MIB; // 100 x 1.25 + 8 = 133: not more
        assertThat(syncAfter(Duration.ofMinutes(10), 0)).isOne();

        used = 134 * MIB;
        assertThat(syncAfter(Duration.ofMinutes(1), 0)).isEqualTo(2);

        used = 300 * MIB;
        assertThat(syncAfter(Duration.ofMinutes(4), 0)).as("within five minutes of the last").isEqualTo(2);
        assertThat(syncAfter(Duration.ofMinutes(1), 0)).isEqualTo(3);
    }

    @Test
    void beforeAnyCollectionOfTheOldGenerationGrowthIsNotJudged() {
        HeapReturn unknown = new HeapReturn(new HeapReturn.OldGeneration() {
            @Override
            public long used() {
                return 500 * MIB;
            }

            @Override
            public long usedAfterLastCollection() {
                return 0;
            }
        }, () -> collections++, () -> now);
        unknown.afterSync(writes(0));
        after(Duration.ofHours(1));
        unknown.afterSync(writes(0));

        assertThat(collections).as("the first sync only").isOne();
    }

    @Test
    void thisJvmsOldGenerationIsFoundAndReportsWhatAFullCollectionLeft() {
        java.lang.management.MemoryPoolMXBean pool = HeapReturn.oldGenerationPool().orElseThrow();
        assertThat(pool.getName()).containsAnyOf("Old", "Tenured");

        HeapReturn.forThisJvm().afterSync(writes(0)); // the first sync: a real full collection of this JVM

        assertThat(pool.getCollectionUsage().getUsed()).as("the old generation after that collection").isPositive();
    }

    /**
     * The agent's collection runs with MaxHeapFreeRatio lowered to MinHeapFreeRatio, and only then: the JVM's own
     * collections keep the configured margin afterwards.
     */
    @Test
    void theAgentsCollectionLowersTheFreeRatioForItsLengthOnly() {
        com.sun.management.HotSpotDiagnosticMXBean vm = java.lang.management.ManagementFactory.getPlatformMXBean(
                com.sun.management.HotSpotDiagnosticMXBean.class);
        String max = vm.getVMOption("MaxHeapFreeRatio").getValue();
        String min = vm.getVMOption("MinHeapFreeRatio").getValue();
        String[] during = new String[1];

        HeapReturn.collectTightly(() -> during[0] = vm.getVMOption("MaxHeapFreeRatio").getValue());

        assertThat(Integer.parseInt(min)).as("this JVM's options leave room to lower").isLessThan(Integer.parseInt(max));
        assertThat(during[0]).as("during the collection").isEqualTo(min);
        assertThat(vm.getVMOption("MaxHeapFreeRatio").getValue()).as("restored").isEqualTo(max);
    }
}
