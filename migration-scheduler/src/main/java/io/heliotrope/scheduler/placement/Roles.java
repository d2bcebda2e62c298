package io.heliotrope.scheduler.placement;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The VMs' role classes ({@link io.heliotrope.scheduler.spi.Scorer#roleClasses()}), numbered
 * {@code 0..classes-1}, and the order the search places VMs in: the VMs alone in their class
 * (an ensemble's leader) first, then each other class's VMs together, each in VM order.
 */
record Roles(int[] order, int[] classOf, int[] classSize) {
    static Roles of(int[] roleClasses, int vms) {
        int[] classOf = new int[vms];
        if (roleClasses == null) {
            Arrays.setAll(classOf, vm -> vm);
        } else {
            if (roleClasses.length != vms) {
                throw new IllegalArgumentException("roleClasses has " + roleClasses.length + " entries for " + vms + " VMs");
            }
            Map<Integer, Integer> numbers = new HashMap<>();
            for (int vm = 0; vm < vms; vm++) {
                classOf[vm] = numbers.computeIfAbsent(roleClasses[vm], role -> numbers.size());
            }
        }
        int classes = Arrays.stream(classOf).max().orElse(-1) + 1;
        int[] classSize = new int[classes];
        for (int role : classOf) {
            classSize[role]++;
        }
        int[] order = new int[vms];
        int next = 0;
        for (int vm = 0; vm < vms; vm++) {
            if (classSize[classOf[vm]] == 1) {
                order[next++] = vm;
            }
        }
        for (int role = 0; role < classes; role++) {
            for (int vm = 0; vm < vms && classSize[role] > 1; vm++) {
                if (classOf[vm] == role) {
                    order[next++] = vm;
                }
            }
        }
        return new Roles(order, classOf, classSize);
    }

    int classes() {
        return classSize.length;
    }

    /** Whether the VM placed at {@code depth} is of the same class as the one placed before it. */
    boolean continuesClass(int depth) {
        return depth > 0 && classOf[order[depth]] == classOf[order[depth - 1]];
    }
}
