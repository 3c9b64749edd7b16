#include "topo/topology.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hwloc.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/cpulist.hpp"

namespace colltune {
namespace {

std::vector<int> bitmap_indexes(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  unsigned i = 0;
  hwloc_bitmap_foreach_begin(i, set) { out.push_back(static_cast<int>(i)); }
  hwloc_bitmap_foreach_end();
  return out;
}

std::string kind_of(hwloc_obj_t pci) {
  const unsigned cls = pci->attr->pcidev.class_id;
  if (cls == 0x0207) return "infiniband";
  if (cls == 0x0200) return "ethernet";
  if ((cls >> 8) == 0x03 || (cls >> 8) == 0x12) return "gpu";  // display, processing accelerators
  return "";
}

std::string os_device_names(hwloc_obj_t pci) {
  std::vector<std::string> names;
  for (hwloc_obj_t child = pci->io_first_child; child != nullptr; child = child->next_sibling) {
    if (child->type == HWLOC_OBJ_OS_DEVICE && child->name != nullptr)
      names.emplace_back(child->name);
  }
  return fmt::format("{}", fmt::join(names, ","));
}

}  // namespace

struct Topology::Impl {
  hwloc_topology_t topo = nullptr;
};

Topology::Topology() : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topo) != 0)
    throw std::runtime_error("hwloc_topology_init failed");
  hwloc_topology_set_io_types_filter(impl_->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(impl_->topo) != 0) {
    hwloc_topology_destroy(impl_->topo);
    throw std::runtime_error("hwloc_topology_load failed");
  }
}

Topology::~Topology() { hwloc_topology_destroy(impl_->topo); }

int Topology::pu_count() const { return hwloc_get_nbobjs_by_type(impl_->topo, HWLOC_OBJ_PU); }

TopologySummary Topology::summary() const {
  hwloc_topology_t t = impl_->topo;
  TopologySummary s;
  s.packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  s.numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  s.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  s.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  for (int i = 0; i < s.numa_nodes; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    s.numa.push_back({static_cast<int>(node->os_index),
                      format_cpulist(bitmap_indexes(node->cpuset)),
                      node->attr->numanode.local_memory});
  }
  std::map<int, CacheInfo> caches;
  for (hwloc_obj_type_t type :
       {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE}) {
    const int n = hwloc_get_nbobjs_by_type(t, type);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t c = hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i));
      CacheInfo& info = caches[static_cast<int>(c->attr->cache.depth)];
      info.level = static_cast<int>(c->attr->cache.depth);
      info.size_bytes = c->attr->cache.size;
      ++info.count;
    }
  }
  for (const auto& [level, info] : caches) s.caches.push_back(info);
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(t, nullptr); pci != nullptr;
       pci = hwloc_get_next_pcidev(t, pci)) {
    const std::string kind = kind_of(pci);
    if (kind.empty()) continue;
    PciInfo info;
    info.kind = kind;
    info.busid = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci->attr->pcidev.domain,
                             pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
    info.names = os_device_names(pci);
    const char* vendor = hwloc_obj_get_info_by_name(pci, "PCIVendor");
    const char* device = hwloc_obj_get_info_by_name(pci, "PCIDevice");
    info.model =
        fmt::format("{} {}", vendor ? vendor : fmt::format("{:04x}", pci->attr->pcidev.vendor_id),
                    device ? device : fmt::format("{:04x}", pci->attr->pcidev.device_id));
    hwloc_obj_t anchor = hwloc_get_non_io_ancestor_obj(t, pci);
    if (anchor != nullptr && anchor->nodeset != nullptr &&
        hwloc_bitmap_weight(anchor->nodeset) == 1) {
      info.numa = hwloc_bitmap_first(anchor->nodeset);
    }
    (kind == "gpu" ? s.gpus : s.nics).push_back(std::move(info));
  }
  return s;
}

std::vector<int> Topology::cores_of(const std::vector<int>& pus) const {
  std::vector<int> cores;
  for (int pu : pus) {
    hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(impl_->topo, static_cast<unsigned>(pu));
    while (obj != nullptr && obj->type != HWLOC_OBJ_CORE) obj = obj->parent;
    if (obj != nullptr) cores.push_back(static_cast<int>(obj->logical_index));
  }
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  return cores;
}

std::vector<int> Topology::numa_of(const std::vector<int>& pus) const {
  hwloc_bitmap_t cpuset = hwloc_bitmap_alloc();
  for (int pu : pus) hwloc_bitmap_set(cpuset, static_cast<unsigned>(pu));
  hwloc_bitmap_t nodeset = hwloc_bitmap_alloc();
  hwloc_cpuset_to_nodeset(impl_->topo, cpuset, nodeset);
  std::vector<int> out = bitmap_indexes(nodeset);
  hwloc_bitmap_free(nodeset);
  hwloc_bitmap_free(cpuset);
  return out;
}

void* Topology::alloc_on_node(int numa_os_index, std::size_t bytes) {
  hwloc_obj_t node =
      hwloc_get_numanode_obj_by_os_index(impl_->topo, static_cast<unsigned>(numa_os_index));
  if (node == nullptr) return nullptr;
  hwloc_set_cpubind(impl_->topo, node->cpuset, HWLOC_CPUBIND_THREAD);
  return hwloc_alloc_membind(impl_->topo, bytes, node->nodeset, HWLOC_MEMBIND_BIND,
                             HWLOC_MEMBIND_BYNODESET);
}

void Topology::free_on_node(void* p, std::size_t bytes) { hwloc_free(impl_->topo, p, bytes); }

}  // namespace colltune
