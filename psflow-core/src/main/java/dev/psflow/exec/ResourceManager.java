package dev.psflow.exec;

import dev.psflow.tensor.ResourceHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The resources of one device (one task's CPU), keyed by (container, name): every session and
 * every step on the task sees the same objects, which is how each worker's own graph reaches the
 * same ps variable by name. Thread-safe.
 *
 * <pre>{@code
 * VariableResource v = rm.lookupOrCreate(handle, VariableResource.class, VariableResource::new);
 * rm.clear("");   // drops every resource of the default container (Session reset)
 * }</pre>
 */
public final class ResourceManager {
  /**
   * A map key looked up for every variable of every step. equals and hashCode written out: a
   * record's own go through a method-handle chain (ObjectMethods) that C1, a task's only
   * compiler, does not inline: 0.6% of a ps's CPU in the README's job (async-profiler).
   */
  private record Key(String container, String name) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && container.equals(k.container) && name.equals(k.name);
    }

    @Override
    public int hashCode() {
      return 31 * container.hashCode() + name.hashCode();
    }
  }

  private final Map<Key, Resource> resources = new ConcurrentHashMap<>();

  /** The resource, or NOT_FOUND naming it. FAILED_PRECONDITION if it exists with another type. */
  public <T extends Resource> T lookup(ResourceHandle h, Class<T> type) {
    Resource r = resources.get(new Key(h.container(), h.name()));
    if (r == null) {
      throw StatusException.notFound("resource " + h.name() + " does not exist on " + h.device());
    }
    return cast(h, r, type);
  }

  /** The resource, or null when it does not exist. */
  public <T extends Resource> T find(ResourceHandle h, Class<T> type) {
    Resource r = resources.get(new Key(h.container(), h.name()));
    return r == null ? null : cast(h, r, type);
  }

  public <T extends Resource> T lookupOrCreate(ResourceHandle h, Class<T> type, Supplier<T> create) {
    Resource r = resources.computeIfAbsent(new Key(h.container(), h.name()), k -> create.get());
    return cast(h, r, type);
  }

  public void delete(ResourceHandle h) {
    resources.remove(new Key(h.container(), h.name()));
  }

  /** Removes every resource of a container ("" is the default one); TensorFlow's Session.reset. */
  public void clear(String container) {
    resources.keySet().removeIf(k -> k.container().equals(container));
  }

  /** Names of the resources of a type, sorted. */
  public List<String> names(Class<? extends Resource> type) {
    List<String> out = new ArrayList<>();
    resources.forEach((k, v) -> {
      if (type.isInstance(v)) {
        out.add(k.name());
      }
    });
    out.sort(null);
    return out;
  }

  /** Calls {@code action} with the name and object of each resource of a type (a live view, unordered). */
  public <T extends Resource> void forEach(Class<T> type, BiConsumer<String, T> action) {
    resources.forEach((k, v) -> {
      if (type.isInstance(v)) {
        action.accept(k.name(), type.cast(v));
      }
    });
  }

  private static <T extends Resource> T cast(ResourceHandle h, Resource r, Class<T> type) {
    if (!type.isInstance(r)) {
      throw StatusException.failedPrecondition(
          "resource " + h.name() + " is a " + r.describe() + ", not a " + type.getSimpleName());
    }
    return type.cast(r);
  }
}
