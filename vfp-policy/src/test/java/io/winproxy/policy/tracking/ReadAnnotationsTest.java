package io.winproxy.policy.tracking;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.ServiceInfo;
import org.junit.jupiter.api.Test;

/** The agent's mapper keeps only {@link ServiceInfo#READ_ANNOTATIONS}: every annotation the converter reads. */
class ReadAnnotationsTest {
    @Test
    void everyAnnotationTheConverterReadsIsKeptByTheMappers() {
        assertThat(ServiceInfo.READ_ANNOTATIONS).containsExactlyInAnyOrder(ServiceConverter.PRESERVE_DESTINATION,
                ServiceConverter.TOPOLOGY_MODE, ServiceConverter.TOPOLOGY_AWARE_HINTS);
    }
}
